/**
 * Redaction of secret values from what a run hands back (its output, errors, file names) before a model, a browser
 * or the database sees it: each value, and the forms a script is likely to print it in, becomes `[secret NAME]`.
 *
 * The forms: the raw value; URL-encoded (`encodeURIComponent`, and form encoding with `+` for space); JSON-escaped
 * (also with non-ASCII as `\uXXXX`, as Python's json.dumps writes it); hex (lower and upper case); base64, standard
 * and url-safe, padded and unpadded, at each of the three byte alignments the value can start at inside a longer
 * encoded string (so `Basic base64(user:token)` is caught). At an alignment the characters that also carry bits of
 * the neighbouring bytes are left out of the pattern: at most two characters at each end (a dozen bits) can stay.
 *
 * Not caught: a value split by a line break (base64 wrapped at 76 columns), or encoded some other way (reversed,
 * encrypted, gzipped). A hostile script can always leak an env-mode secret it holds; this keeps honest output clean.
 */
import { StringDecoder } from 'node:string_decoder';

/** A `RunSecret` (resolve.ts) fits: one without a value is skipped. */
export interface RedactableSecret {
  name: string;
  value: string | null;
}

export interface RedactStream {
  /** Redacts what is safe to pass on so far; keeps back a tail that could be the start of a value. */
  push(chunk: string | Uint8Array): string;
  /** The rest, redacted: call once at the end. */
  flush(): string;
}

export interface Redactor {
  redact(text: string): string;
  /** A redactor for one stream whose chunks may split a value anywhere. */
  stream(): RedactStream;
}

/** Values shorter than this are not looked for (the config refuses them: values.ts). */
const SHORTEST = 4;

function base64Forms(bytes: Buffer): string[] {
  const forms: string[] = [];
  for (let lead = 0; lead < 3; lead++) {
    const total = lead + bytes.length;
    const encoded = Buffer.concat([Buffer.alloc(lead), bytes]).toString('base64');
    const unpadded = encoded.replace(/=+$/, '');
    // Characters holding bits of the leading bytes: none, 2 (one byte), 3 (two bytes).
    const skip = [0, 2, 3][lead]!;
    // Characters at the end that also hold bits of whatever follows the value.
    const core = unpadded.slice(skip, total % 3 === 0 ? unpadded.length : unpadded.length - 1);
    const candidates = [core];
    // The value ends the encoded string: its last characters are the value's own (and its padding).
    candidates.push(encoded.slice(skip), unpadded.slice(skip));
    for (const c of candidates) forms.push(c, c.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return forms;
}

function asciiJson(value: string): string {
  return JSON.stringify(value)
    .slice(1, -1)
    .replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Every form of one value, each at least as long as the shortest we look for. */
export function secretForms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const uri = encodeURIComponent(value);
  const forms = [
    value,
    uri,
    uri.replaceAll('%20', '+'),
    new URLSearchParams({ v: value }).toString().slice(2),
    JSON.stringify(value).slice(1, -1),
    asciiJson(value),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
    ...base64Forms(bytes),
  ];
  return [...new Set(forms)].filter((f) => f.length >= SHORTEST);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function createRedactor(secrets: ReadonlyArray<RedactableSecret>): Redactor {
  const nameOf = new Map<string, string>();
  for (const { name, value } of secrets) {
    if (value === null || value.length < SHORTEST) continue;
    for (const form of secretForms(value)) if (!nameOf.has(form)) nameOf.set(form, name);
  }
  // Longest first, so at any position the longest form wins (a regex alternation takes the first that matches).
  const forms = [...nameOf.keys()].sort((a, b) => b.length - a.length);
  const longest = forms[0]?.length ?? 0;
  const pattern = forms.length > 0 ? new RegExp(forms.map(escapeRegExp).join('|'), 'g') : null;
  const replacement = (form: string) => `[secret ${nameOf.get(form)}]`;

  const redact = (text: string): string => (pattern ? text.replace(pattern, replacement) : text);

  /**
   * Redacts `text` up to the point where a form could still begin and not yet be complete; returns that part and
   * the raw rest. A match starting at or before `text.length - longest` is final: every form that could start there
   * is wholly inside `text`, so the alternation picked at that position is the one the whole stream would.
   */
  const settle = (text: string): { out: string; rest: string } => {
    if (!pattern) return { out: text, rest: '' };
    const cut = text.length - longest + 1;
    if (cut <= 0) return { out: '', rest: text };
    let out = '';
    let pos = 0;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null && m.index < cut; m = pattern.exec(text)) {
      out += text.slice(pos, m.index) + replacement(m[0]);
      pos = m.index + m[0].length;
    }
    if (pos < cut) {
      out += text.slice(pos, cut);
      pos = cut;
    }
    return { out, rest: text.slice(pos) };
  };

  return {
    redact,
    stream() {
      const decoder = new StringDecoder('utf8');
      let held = '';
      return {
        push(chunk) {
          const { out, rest } = settle(held + (typeof chunk === 'string' ? chunk : decoder.write(Buffer.from(chunk))));
          held = rest;
          return out;
        },
        flush() {
          const out = redact(held + decoder.end());
          held = '';
          return out;
        },
      };
    },
  };
}
