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

/** Several skills in one message: `/a /b do X` names `a` and `b` (in order, once each) and asks `do X`. */
export interface MultiInvocation {
  names: string[];
  rest: string;
}

/**
 * The known `/name`s a message starts with, then the request. Stops at the first word that is not a known `/name`
 * (so `/a /etc/passwd` invokes `a` with the request `/etc/passwd`); null when the first one is not known.
 */
export function parseInvocations(text: string, isKnown: (name: string) => boolean): MultiInvocation | null {
  const names: string[] = [];
  let remaining = text;
  for (;;) {
    const next = parseInvocation(remaining, isKnown);
    if (!next) break;
    if (!names.includes(next.name)) names.push(next.name);
    remaining = next.rest;
  }
  return names.length === 0 ? null : { names, rest: remaining.trim() };
}
