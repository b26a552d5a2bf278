CREATE TABLE `skill_eval_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`skill_name` text NOT NULL,
	`content_hash` text NOT NULL,
	`user_id` text NOT NULL,
	`model` text NOT NULL,
	`status` text NOT NULL,
	`report` text NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `skill_eval_runs_skill_idx` ON `skill_eval_runs` (`skill_name`,`started_at`);