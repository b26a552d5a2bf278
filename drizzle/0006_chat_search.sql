-- Full-text search over chat titles and message text (GET /api/chats?q=). Two FTS5 tables keyed by the rowid of
-- the row they index, so keeping them in step is an indexed delete + insert; triggers do it on every write path.
-- Message text is the `text` parts of the stored JSON; tool calls and files are not searched.
CREATE VIRTUAL TABLE `chat_title_search` USING fts5(`title`, tokenize = 'unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE VIRTUAL TABLE `message_search` USING fts5(`body`, `chat_id` UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE TRIGGER `chats_search_ai` AFTER INSERT ON `chats` BEGIN
  INSERT INTO `chat_title_search`(rowid, `title`) VALUES (new.rowid, new.`title`);
END;
--> statement-breakpoint
CREATE TRIGGER `chats_search_au` AFTER UPDATE OF `title` ON `chats` BEGIN
  DELETE FROM `chat_title_search` WHERE rowid = old.rowid;
  INSERT INTO `chat_title_search`(rowid, `title`) VALUES (new.rowid, new.`title`);
END;
--> statement-breakpoint
CREATE TRIGGER `chats_search_ad` AFTER DELETE ON `chats` BEGIN
  DELETE FROM `chat_title_search` WHERE rowid = old.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `messages_search_ai` AFTER INSERT ON `messages` WHEN json_valid(new.`parts`) BEGIN
  INSERT INTO `message_search`(rowid, `body`, `chat_id`)
  SELECT new.rowid, group_concat(json_extract(value, '$.text'), char(10)), new.`chat_id`
  FROM json_each(new.`parts`) WHERE json_extract(value, '$.type') = 'text';
END;
--> statement-breakpoint
CREATE TRIGGER `messages_search_au` AFTER UPDATE OF `parts` ON `messages` BEGIN
  DELETE FROM `message_search` WHERE rowid = old.rowid;
  INSERT INTO `message_search`(rowid, `body`, `chat_id`)
  SELECT new.rowid, group_concat(json_extract(value, '$.text'), char(10)), new.`chat_id`
  FROM json_each(CASE WHEN json_valid(new.`parts`) THEN new.`parts` ELSE '[]' END)
  WHERE json_extract(value, '$.type') = 'text';
END;
--> statement-breakpoint
CREATE TRIGGER `messages_search_ad` AFTER DELETE ON `messages` BEGIN
  DELETE FROM `message_search` WHERE rowid = old.rowid;
END;
--> statement-breakpoint
INSERT INTO `chat_title_search`(rowid, `title`) SELECT rowid, `title` FROM `chats`;
--> statement-breakpoint
INSERT INTO `message_search`(rowid, `body`, `chat_id`)
SELECT m.rowid, group_concat(json_extract(p.value, '$.text'), char(10)), m.`chat_id`
FROM `messages` m, json_each(m.`parts`) p
WHERE json_valid(m.`parts`) AND json_extract(p.value, '$.type') = 'text'
GROUP BY m.rowid;
