CREATE TABLE `skill_modes` (
	`skill_name` text PRIMARY KEY NOT NULL,
	`mode` text NOT NULL,
	`updated_at` integer NOT NULL
);
