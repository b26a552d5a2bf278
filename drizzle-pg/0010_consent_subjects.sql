-- Consent subjects are typed: a kind (`skill`, `mcp-server`, `mcp-tool`, ...) and a key within it, instead of one
-- `skill_name` string holding three conventions. Every existing row is converted:
--   grants and decisions: `mcp:<label>/<tool>` is the MCP tool `<label>/<tool>` (skill names never hold `/`), any
--   other name a skill.
--   switches (user_skill_prefs): every row stays a skill's switch, and `mcp:<label>` with a server label's shape also
--   becomes the switch of the MCP server `<label>`: the old key meant both (the served skill `github` of a server
--   labelled `mcp` and the server `github`), so both keep the effect they had.
DROP INDEX "permission_grants_skill_idx";--> statement-breakpoint
ALTER TABLE "permission_grants" RENAME COLUMN "skill_name" TO "subject";--> statement-breakpoint
ALTER TABLE "permission_grants" ADD COLUMN "subject_kind" text;--> statement-breakpoint
UPDATE "permission_grants" SET "subject_kind" = CASE WHEN "subject" ~ '^mcp:[^/]+/.' THEN 'mcp-tool' ELSE 'skill' END;--> statement-breakpoint
UPDATE "permission_grants" SET "subject" = substr("subject", 5) WHERE "subject_kind" = 'mcp-tool';--> statement-breakpoint
ALTER TABLE "permission_grants" ALTER COLUMN "subject_kind" SET NOT NULL;--> statement-breakpoint
CREATE INDEX "permission_grants_subject_idx" ON "permission_grants" USING btree ("subject_kind","subject","content_hash");--> statement-breakpoint
ALTER TABLE "permission_decisions" RENAME COLUMN "skill_name" TO "subject";--> statement-breakpoint
ALTER TABLE "permission_decisions" ADD COLUMN "subject_kind" text;--> statement-breakpoint
UPDATE "permission_decisions" SET "subject_kind" = CASE WHEN "subject" ~ '^mcp:[^/]+/.' THEN 'mcp-tool' ELSE 'skill' END;--> statement-breakpoint
UPDATE "permission_decisions" SET "subject" = substr("subject", 5) WHERE "subject_kind" = 'mcp-tool';--> statement-breakpoint
ALTER TABLE "permission_decisions" ALTER COLUMN "subject_kind" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "user_skill_prefs" DROP CONSTRAINT "user_skill_prefs_user_id_skill_name_pk";--> statement-breakpoint
ALTER TABLE "user_skill_prefs" RENAME COLUMN "skill_name" TO "subject";--> statement-breakpoint
ALTER TABLE "user_skill_prefs" ADD COLUMN "subject_kind" text;--> statement-breakpoint
UPDATE "user_skill_prefs" SET "subject_kind" = 'skill';--> statement-breakpoint
ALTER TABLE "user_skill_prefs" ALTER COLUMN "subject_kind" SET NOT NULL;--> statement-breakpoint
INSERT INTO "user_skill_prefs" ("user_id", "subject_kind", "subject", "disabled", "updated_at")
SELECT "user_id", 'mcp-server', substr("subject", 5), "disabled", "updated_at" FROM "user_skill_prefs"
WHERE "subject" ~ '^mcp:[a-z0-9][a-z0-9-]{0,30}$';--> statement-breakpoint
ALTER TABLE "user_skill_prefs" ADD CONSTRAINT "user_skill_prefs_user_id_subject_kind_subject_pk" PRIMARY KEY("user_id","subject_kind","subject");
