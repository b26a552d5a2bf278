ALTER TABLE "activation_events" ADD COLUMN "user_id" text;--> statement-breakpoint
ALTER TABLE "chats" ADD COLUMN "user_id" text DEFAULT 'local' NOT NULL;--> statement-breakpoint
ALTER TABLE "permission_decisions" ADD COLUMN "user_id" text;--> statement-breakpoint
ALTER TABLE "script_runs" ADD COLUMN "user_id" text;--> statement-breakpoint
CREATE INDEX "chats_user_updated_idx" ON "chats" USING btree ("user_id","updated_at");--> statement-breakpoint
UPDATE "activation_events" SET "user_id" = "chats"."user_id" FROM "chats" WHERE "chats"."id" = "activation_events"."chat_id";--> statement-breakpoint
UPDATE "script_runs" SET "user_id" = "chats"."user_id" FROM "chats" WHERE "chats"."id" = "script_runs"."chat_id";--> statement-breakpoint
UPDATE "permission_decisions" SET "user_id" = "chats"."user_id" FROM "chats" WHERE "chats"."id" = "permission_decisions"."chat_id";
