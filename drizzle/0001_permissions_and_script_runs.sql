CREATE TABLE `permission_decisions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`chat_id` text,
	`skill_name` text NOT NULL,
	`decision` text NOT NULL,
	`content_hash` text NOT NULL,
	`at` integer NOT NULL,
	FOREIGN KEY (`chat_id`) REFERENCES `chats`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `permission_decisions_at_idx` ON `permission_decisions` (`at`);--> statement-breakpoint
CREATE TABLE `permission_grants` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`skill_name` text NOT NULL,
	`content_hash` text NOT NULL,
	`granted_at` integer NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE INDEX `permission_grants_skill_idx` ON `permission_grants` (`skill_name`,`content_hash`);--> statement-breakpoint
CREATE TABLE `script_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`chat_id` text,
	`skill_name` text NOT NULL,
	`script` text NOT NULL,
	`args` text NOT NULL,
	`exit_code` integer,
	`timed_out` integer DEFAULT false NOT NULL,
	`duration_ms` integer NOT NULL,
	`at` integer NOT NULL,
	FOREIGN KEY (`chat_id`) REFERENCES `chats`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `script_runs_at_idx` ON `script_runs` (`at`);