CREATE TABLE `mcp_connections` (
	`user_id` text NOT NULL,
	`server` text NOT NULL,
	`ciphertext` text NOT NULL,
	`iv` text NOT NULL,
	`tag` text NOT NULL,
	`key_id` text NOT NULL,
	`scopes` text,
	`expires_at` integer,
	`connected_at` integer,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `server`)
);
--> statement-breakpoint
CREATE INDEX `mcp_connections_server_idx` ON `mcp_connections` (`server`);