/**
 * Lines the turn appends after the instructions (chat/turn/model-answer.ts), last so the cached prefix holds: what
 * changes from turn to turn without changing the skills.
 */
import { LEFT_OUT_KEY, NO_SANDBOX_KEY, NO_SANDBOX_NOTE, WORKSPACE_FILES_KEY } from './keys';

/** Appended when the history was cut without a summary (the offline model, or a summary that failed). */
export function compactionNote(dropped: number): string {
  return `\n\n${LEFT_OUT_KEY}: ${dropped} (the chat is longer than the model's context window allows; earlier messages were left out of this request. Activated skills' instructions above are complete.)`;
}

export interface ListedFile {
  name: string;
  size: number;
  mediaType: string;
}

/** Files the model is told of, at most: the chat's files are in /workspace for scripts, the listing is a pointer. */
const LISTED_FILES = 100;

/** Appended last, so the cached prefix holds: the chat's files (names, sizes, types), or nothing without any. */
export function workspaceFilesLine(files: readonly ListedFile[]): string {
  if (files.length === 0) return '';
  const listed = files.slice(0, LISTED_FILES).map(({ name, size, mediaType }) => ({ name, size, mediaType }));
  return `\n\n${WORKSPACE_FILES_KEY} (the chat's files, in /workspace for scripts): ${JSON.stringify(listed)}`;
}

/**
 * Appended when the person may use the shell but no sandbox can run code here: the reason (which names the fix), so
 * the model tells the person what is missing instead of only that a tool is absent. One line, for the key's reader.
 */
export function noSandboxLine(reason: string): string {
  const said = reason.replace(/\s+/g, ' ').trim();
  return `\n\n${NO_SANDBOX_KEY}: ${said} (${NO_SANDBOX_NOTE})`;
}
