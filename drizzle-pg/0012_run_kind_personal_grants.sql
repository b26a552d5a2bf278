ALTER TABLE "permission_grants" ADD COLUMN "user_id" text;--> statement-breakpoint
ALTER TABLE "script_runs" ADD COLUMN "kind" text DEFAULT 'script' NOT NULL;