/**
 * The names the system prompt is made of: its lines' keys, its blocks' tags. Written by this room only, and read
 * back by the offline model (server/offline-model/prompt-reader.ts) from the same constants, so the two cannot drift.
 */

/** The catalog's JSON key: `{"available_skills":[{"name","description"}]}`. */
export const CATALOG_KEY = 'available_skills';
/** `activated_skill_names: ["a","b"]`: the chat's activated skills. */
export const ACTIVATED_KEY = 'activated_skill_names';
/** `explicit_skill: <name>`: the skill a `/name` invocation forces on this step. */
export const EXPLICIT_SKILL_KEY = 'explicit_skill';
/** `workspace_files (...): [{"name","size","mediaType"}]`: the chat's files. */
export const WORKSPACE_FILES_KEY = 'workspace_files';
/** `code_cannot_run: <reason> (...)`: the person may use the shell, but no sandbox can run here, and why. */
export const NO_SANDBOX_KEY = 'code_cannot_run';
/** What follows the reason on that line, in brackets: where the reader's reason ends. */
export const NO_SANDBOX_NOTE =
  'no script or command can run in this chat until the operator fixes this; tell the person so, with this reason';
/** `earlier_messages_left_out: N (...)`: the history was cut without a summary. */
export const LEFT_OUT_KEY = 'earlier_messages_left_out';
/** `<conversation_summary>`: a real model's summary of the messages left out. */
export const SUMMARY_TAG = 'conversation_summary';
/** `<skill_content name="...">`: an activated skill's instructions, re-attached every turn. */
export const SKILL_CONTENT_TAG = 'skill_content';
/** `<skill_resources>` inside a skill's block, one `<file>` line per file. */
export const SKILL_RESOURCES_TAG = 'skill_resources';
/** Starts the line after a skill's instructions in its block: where its relative paths point. */
export const SKILL_DIRECTORY_LABEL = 'Skill directory: ';
/** `<attached_document name="...">` before a person's words: a file of theirs, as text (chat/attached-documents.ts). */
export const DOCUMENT_TAG = 'attached_document';
/** The text of an `unreadable="true"` document starts with this, then the reason. */
export const UNREADABLE_LABEL = 'The file could not be read: ';
/** `<description_request>{json}</description_request>`: a request for skill descriptions (server/evals/describe.ts). */
export const DESCRIPTION_REQUEST_TAG = 'description_request';
