CREATE TABLE `message_versions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`chat_id` text NOT NULL,
	`parent_id` text NOT NULL,
	`version_no` integer NOT NULL,
	`messages` text,
	`owner_id` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`chat_id`) REFERENCES `chats`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `message_versions_chat_idx` ON `message_versions` (`chat_id`,`parent_id`);