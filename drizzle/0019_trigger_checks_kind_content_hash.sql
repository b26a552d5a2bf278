ALTER TABLE `trigger_checks` ADD `kind` text DEFAULT 'trigger' NOT NULL;--> statement-breakpoint
ALTER TABLE `trigger_checks` ADD `content_hash` text;