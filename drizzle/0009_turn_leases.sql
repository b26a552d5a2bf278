CREATE TABLE `chat_turns` (
	`chat_id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`message_id` text,
	`started_at` integer NOT NULL,
	`heartbeat_at` integer NOT NULL,
	`stop_requested_at` integer,
	FOREIGN KEY (`chat_id`) REFERENCES `chats`(`id`) ON UPDATE no action ON DELETE cascade
);
