CREATE TABLE `model_connections` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`base_url` text NOT NULL,
	`models` text,
	`ciphertext` text,
	`iv` text,
	`tag` text,
	`key_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
