CREATE TABLE `user_skill_prefs` (
	`user_id` text NOT NULL,
	`skill_name` text NOT NULL,
	`disabled` integer DEFAULT false NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `skill_name`)
);
