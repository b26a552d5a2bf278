/**
 * Explicit invocation: a message that starts with `/skill-name` activates that skill on the server (no model call
 * needed to pick it). Anything that is not a known name stays plain text, so `/etc/passwd` or `/shrug` reach the
 * model unchanged. The one parser of `/name`: the server (turn.ts) and the browser (how a sent message shows its
 * command) share it. No imports: safe for the browser.
 */

export interface Invocation {
  /** The skill name as typed (NFKC-normalised, like skill names are). */
  name: string;
  /** What follows the name, trimmed; '' when nothing does. */
  rest: string;
}

// Leading whitespace is allowed (pasted text, a stray space before the slash). The name runs to the first
// whitespace and may not contain another slash, so paths and `//comments` are not invocations. No letter class:
// skill names may use any Unicode letters, and `isKnown` decides what counts as a name.
const INVOCATION_RE = /^\s*\/([^\s/]+)(?:\s+([\s\S]*))?$/;

/** The `/name` a message starts with, known or not; `command` is the text as typed (`/name`, leading space cut). */
export function splitInvocation(text: string): (Invocation & { command: string }) | null {
  const m = INVOCATION_RE.exec(text);
  if (!m) return null;
  return { name: m[1]!.normalize('NFKC'), rest: (m[2] ?? '').trim(), command: `/${m[1]}` };
}

export function parseInvocation(text: string, isKnown: (name: string) => boolean): Invocation | null {
  const split = splitInvocation(text);
  if (!split || !isKnown(split.name)) return null;
  return { name: split.name, rest: split.rest };
}
