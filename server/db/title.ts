/**
 * A chat's title from its first message: the one derivation, used by the server when it stores the first message
 * and by the browser for the title it shows before the server's answer arrives. No imports: safe for the browser.
 */
export const DEFAULT_CHAT_TITLE = 'New chat';
/** Titles derived from a first message; long enough to tell chats apart in a sidebar. */
export const DERIVED_TITLE_LENGTH = 60;

/**
 * Its first non-blank line, whitespace collapsed, cut at a word boundary to at most `maxLength` characters (counted
 * in code points, so an emoji is never split) with an ellipsis.
 */
export function deriveTitle(text: string, maxLength = DERIVED_TITLE_LENGTH): string {
  const line = text.split(/\r\n|\r|\n/).find((l) => l.trim() !== '') ?? '';
  const title = line.replace(/\s+/g, ' ').trim();
  if (title === '') return DEFAULT_CHAT_TITLE;
  const chars = Array.from(title);
  if (chars.length <= maxLength) return title;
  const cut = chars.slice(0, maxLength - 1).join('');
  const lastSpace = cut.lastIndexOf(' ');
  // Back off to the last word boundary unless that throws away more than half the title (one very long word).
  const trimmed = lastSpace > cut.length / 2 ? cut.slice(0, lastSpace) : cut;
  return `${trimmed.trimEnd()}…`;
}
