CREATE TABLE "chat_turns" (
	"chat_id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"message_id" text,
	"started_at" timestamp with time zone NOT NULL,
	"heartbeat_at" timestamp with time zone NOT NULL,
	"stop_requested_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "chat_turns" ADD CONSTRAINT "chat_turns_chat_id_chats_id_fk" FOREIGN KEY ("chat_id") REFERENCES "public"."chats"("id") ON DELETE cascade ON UPDATE no action;