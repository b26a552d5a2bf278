ALTER TABLE `activation_events` ADD `user_id` text;--> statement-breakpoint
ALTER TABLE `chats` ADD `user_id` text DEFAULT 'local' NOT NULL;--> statement-breakpoint
CREATE INDEX `chats_user_updated_idx` ON `chats` (`user_id`,`updated_at`);--> statement-breakpoint
ALTER TABLE `permission_decisions` ADD `user_id` text;--> statement-breakpoint
ALTER TABLE `script_runs` ADD `user_id` text;--> statement-breakpoint
UPDATE `activation_events` SET `user_id` = (SELECT `user_id` FROM `chats` WHERE `chats`.`id` = `activation_events`.`chat_id`);--> statement-breakpoint
UPDATE `script_runs` SET `user_id` = (SELECT `user_id` FROM `chats` WHERE `chats`.`id` = `script_runs`.`chat_id`) WHERE `chat_id` IS NOT NULL;--> statement-breakpoint
UPDATE `permission_decisions` SET `user_id` = (SELECT `user_id` FROM `chats` WHERE `chats`.`id` = `permission_decisions`.`chat_id`) WHERE `chat_id` IS NOT NULL;
