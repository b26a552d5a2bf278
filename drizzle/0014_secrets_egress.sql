CREATE TABLE `egress_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`chat_id` text,
	`user_id` text,
	`run_id` text NOT NULL,
	`skills` text NOT NULL,
	`host` text NOT NULL,
	`port` integer NOT NULL,
	`allowed` integer NOT NULL,
	`code` text,
	`reason` text,
	`requests` integer DEFAULT 1 NOT NULL,
	`bytes_in` integer DEFAULT 0 NOT NULL,
	`bytes_out` integer DEFAULT 0 NOT NULL,
	`duration_ms` integer DEFAULT 0 NOT NULL,
	`at` integer NOT NULL,
	FOREIGN KEY (`chat_id`) REFERENCES `chats`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `egress_events_at_idx` ON `egress_events` (`at`);--> statement-breakpoint
CREATE INDEX `egress_events_user_idx` ON `egress_events` (`user_id`,`at`);--> statement-breakpoint
CREATE INDEX `egress_events_host_idx` ON `egress_events` (`host`,`at`);--> statement-breakpoint
CREATE INDEX `egress_events_run_idx` ON `egress_events` (`run_id`);--> statement-breakpoint
CREATE TABLE `secrets` (
	`name` text NOT NULL,
	`owner_id` text DEFAULT '' NOT NULL,
	`ciphertext` text NOT NULL,
	`iv` text NOT NULL,
	`tag` text NOT NULL,
	`key_id` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`name`, `owner_id`)
);
