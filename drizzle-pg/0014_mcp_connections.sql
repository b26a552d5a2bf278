CREATE TABLE "mcp_connections" (
	"user_id" text NOT NULL,
	"server" text NOT NULL,
	"ciphertext" text NOT NULL,
	"iv" text NOT NULL,
	"tag" text NOT NULL,
	"key_id" text NOT NULL,
	"scopes" text,
	"expires_at" timestamp with time zone,
	"connected_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "mcp_connections_user_id_server_pk" PRIMARY KEY("user_id","server")
);
--> statement-breakpoint
CREATE INDEX "mcp_connections_server_idx" ON "mcp_connections" USING btree ("server");