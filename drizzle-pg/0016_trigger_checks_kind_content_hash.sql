ALTER TABLE "trigger_checks" ADD COLUMN "kind" text DEFAULT 'trigger' NOT NULL;--> statement-breakpoint
ALTER TABLE "trigger_checks" ADD COLUMN "content_hash" text;