CREATE TABLE `trigger_checks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`skill_name` text NOT NULL,
	`description_hash` text NOT NULL,
	`model` text NOT NULL,
	`runs` integer NOT NULL,
	`report` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `trigger_checks_skill_idx` ON `trigger_checks` (`skill_name`,`at`);