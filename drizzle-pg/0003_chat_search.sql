-- Full-text search over chat titles and message text, the PostgreSQL twin of drizzle/0004_chat_search.sql: a
-- tsvector column per table kept by a trigger (not a generated column: `parts` is text, and one unreadable row
-- must not make its write fail), each with a GIN index. Message text is the `text` parts of the stored JSON.
CREATE FUNCTION "skillchat_parts_text"("parts" text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN (SELECT string_agg(p->>'text', E'\n') FROM jsonb_array_elements("parts"::jsonb) AS p WHERE p->>'type' = 'text');
EXCEPTION WHEN others THEN
  RETURN NULL;
END;
$$;
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "search" tsvector;
--> statement-breakpoint
CREATE FUNCTION "skillchat_messages_search"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."search" := to_tsvector('simple', coalesce("skillchat_parts_text"(NEW."parts"), ''));
  RETURN NEW;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "messages_search_biu" BEFORE INSERT OR UPDATE OF "parts" ON "messages"
  FOR EACH ROW EXECUTE FUNCTION "skillchat_messages_search"();
--> statement-breakpoint
UPDATE "messages" SET "search" = to_tsvector('simple', coalesce("skillchat_parts_text"("parts"), ''));
--> statement-breakpoint
CREATE INDEX "messages_search_idx" ON "messages" USING gin ("search");
--> statement-breakpoint
CREATE INDEX "chats_title_search_idx" ON "chats" USING gin (to_tsvector('simple', "title"));
