-- Consent subjects are typed: a kind (`skill`, `mcp-server`, `mcp-tool`, ...) and a key within it, instead of one
-- `skill_name` string holding three conventions. Every existing row is converted:
--   grants and decisions: `mcp:<label>/<tool>` is the MCP tool `<label>/<tool>` (skill names never hold `/`), any
--   other name a skill.
--   switches (user_skill_prefs): every row stays a skill's switch, and `mcp:<label>` with a server label's shape also
--   becomes the switch of the MCP server `<label>`: the old key meant both (the served skill `github` of a server
--   labelled `mcp` and the server `github`), so both keep the effect they had.
CREATE TABLE `__new_permission_grants` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subject_kind` text NOT NULL,
	`subject` text NOT NULL,
	`content_hash` text NOT NULL,
	`granted_at` integer NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
INSERT INTO `__new_permission_grants` (`id`, `subject_kind`, `subject`, `content_hash`, `granted_at`, `revoked_at`)
SELECT `id`,
	CASE WHEN `skill_name` GLOB 'mcp:?*/?*' THEN 'mcp-tool' ELSE 'skill' END,
	CASE WHEN `skill_name` GLOB 'mcp:?*/?*' THEN substr(`skill_name`, 5) ELSE `skill_name` END,
	`content_hash`, `granted_at`, `revoked_at`
FROM `permission_grants`;--> statement-breakpoint
DROP TABLE `permission_grants`;--> statement-breakpoint
ALTER TABLE `__new_permission_grants` RENAME TO `permission_grants`;--> statement-breakpoint
CREATE INDEX `permission_grants_subject_idx` ON `permission_grants` (`subject_kind`,`subject`,`content_hash`);--> statement-breakpoint
CREATE TABLE `__new_permission_decisions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`chat_id` text,
	`subject_kind` text NOT NULL,
	`subject` text NOT NULL,
	`decision` text NOT NULL,
	`user_id` text,
	`content_hash` text NOT NULL,
	`at` integer NOT NULL,
	FOREIGN KEY (`chat_id`) REFERENCES `chats`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
INSERT INTO `__new_permission_decisions` (`id`, `chat_id`, `subject_kind`, `subject`, `decision`, `user_id`, `content_hash`, `at`)
SELECT `id`, `chat_id`,
	CASE WHEN `skill_name` GLOB 'mcp:?*/?*' THEN 'mcp-tool' ELSE 'skill' END,
	CASE WHEN `skill_name` GLOB 'mcp:?*/?*' THEN substr(`skill_name`, 5) ELSE `skill_name` END,
	`decision`, `user_id`, `content_hash`, `at`
FROM `permission_decisions`;--> statement-breakpoint
DROP TABLE `permission_decisions`;--> statement-breakpoint
ALTER TABLE `__new_permission_decisions` RENAME TO `permission_decisions`;--> statement-breakpoint
CREATE INDEX `permission_decisions_at_idx` ON `permission_decisions` (`at`);--> statement-breakpoint
CREATE TABLE `__new_user_skill_prefs` (
	`user_id` text NOT NULL,
	`subject_kind` text NOT NULL,
	`subject` text NOT NULL,
	`disabled` integer DEFAULT false NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `subject_kind`, `subject`)
);
--> statement-breakpoint
INSERT INTO `__new_user_skill_prefs` (`user_id`, `subject_kind`, `subject`, `disabled`, `updated_at`)
SELECT `user_id`, 'skill', `skill_name`, `disabled`, `updated_at` FROM `user_skill_prefs`;--> statement-breakpoint
INSERT INTO `__new_user_skill_prefs` (`user_id`, `subject_kind`, `subject`, `disabled`, `updated_at`)
SELECT `user_id`, 'mcp-server', substr(`skill_name`, 5), `disabled`, `updated_at` FROM `user_skill_prefs`
WHERE `skill_name` GLOB 'mcp:[a-z0-9]*' AND substr(`skill_name`, 5) NOT GLOB '*[^a-z0-9-]*'
	AND length(`skill_name`) <= 35;--> statement-breakpoint
DROP TABLE `user_skill_prefs`;--> statement-breakpoint
ALTER TABLE `__new_user_skill_prefs` RENAME TO `user_skill_prefs`;
