ALTER TABLE `permission_grants` ADD `user_id` text;--> statement-breakpoint
ALTER TABLE `script_runs` ADD `kind` text DEFAULT 'script' NOT NULL;