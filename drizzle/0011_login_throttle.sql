CREATE TABLE `known_devices` (
	`account` text NOT NULL,
	`device` text NOT NULL,
	`last_success_at` integer NOT NULL,
	PRIMARY KEY(`account`, `device`)
);
--> statement-breakpoint
CREATE INDEX `known_devices_last_idx` ON `known_devices` (`last_success_at`);--> statement-breakpoint
CREATE TABLE `login_failures` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`scope` text NOT NULL,
	`key` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `login_failures_key_idx` ON `login_failures` (`scope`,`key`,`at`);--> statement-breakpoint
CREATE INDEX `login_failures_at_idx` ON `login_failures` (`at`);