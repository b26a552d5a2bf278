/**
 * Hidden-text scan: characters a person reading SKILL.md (or a text resource) in an editor or on GitHub does not
 * see, but a model reads. Unicode tag characters (U+E0000-U+E007F) can spell out a whole instruction invisibly;
 * bidi overrides reorder what is shown; zero-width characters hide words inside words. Each one found is reported
 * with its line and column (1-based, in code points) so the operator can find it, and `stripHiddenText` takes them
 * out of everything a skill puts in front of the model.
 *
 * One exception, made by both: a single zero-width (non-)joiner between two letters outside ASCII or inside an
 * emoji sequence is visible text (Persian words, Indic conjuncts, the emoji "woman technologist"), not hidden text.
 */
import type { Diagnostic } from '../types';

export type HiddenTextKind = 'tag' | 'bidi' | 'zero-width';

export interface HiddenTextFinding {
  kind: HiddenTextKind;
  /** The code point, as `U+XXXX`. */
  codePoint: string;
  line: number;
  column: number;
}

// Tag block; bidi embeddings, overrides and isolates (U+202A-202E, U+2066-2069) and the marks that steer them
// (U+200E, U+200F, U+061C); zero-width space, (non-)joiner, word joiner, invisible operators, and a BOM after the start.
const HIDDEN =
  /[\u{E0000}-\u{E007F}]|[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]|[\u200B-\u200D\u2060-\u2064\uFEFF]/gu;
const ANY_HIDDEN = new RegExp(HIDDEN.source, 'u');

function kindOf(cp: number): HiddenTextKind {
  if (cp >= 0xe0000) return 'tag';
  if (
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2066 && cp <= 0x2069) ||
    cp === 0x200e ||
    cp === 0x200f ||
    cp === 0x61c
  )
    return 'bidi';
  return 'zero-width';
}

const ZWNJ = 0x200c;
const ZWJ = 0x200d;
/**
 * What a joiner may stand between to be part of the text: a letter or mark outside ASCII (Persian and Urdu need
 * ZWNJ, Indic scripts ZWJ/ZWNJ for conjuncts), an emoji, or what follows one inside an emoji sequence (VS16, skin
 * tones). Between ASCII letters, at either end of the text, or next to another joiner, a joiner has no visible
 * effect and is only good for hiding: that is the exception we make, and the only one.
 */
const JOINABLE = /^(?![\x00-\x7f])[\p{L}\p{M}]$|^\p{Extended_Pictographic}$|^[\u{FE0F}\u{1F3FB}-\u{1F3FF}]$/u;

function codePointBefore(text: string, at: number): string {
  if (at === 0) return '';
  const low = text.charCodeAt(at - 1);
  return low >= 0xdc00 && low <= 0xdfff && at >= 2 ? text.slice(at - 2, at) : text.slice(at - 1, at);
}

/** Whether the hidden-looking character `char` at `at` is a joiner doing a joiner's visible job. */
function isVisibleJoiner(text: string, at: number, char: string): boolean {
  const cp = char.codePointAt(0);
  if (cp !== ZWNJ && cp !== ZWJ) return false;
  const before = codePointBefore(text, at);
  const afterCp = text.codePointAt(at + 1);
  const after = afterCp === undefined ? '' : String.fromCodePoint(afterCp);
  return JOINABLE.test(before) && JOINABLE.test(after);
}

/** Every hidden character in `text`. A BOM as the very first character is the encoding's, not hidden text. */
export function scanHiddenText(text: string): HiddenTextFinding[] {
  const found: HiddenTextFinding[] = [];
  let line = 1;
  let lineStart = 0;
  let counted = 0; // UTF-16 index up to which newlines have been counted
  for (const match of text.matchAll(HIDDEN)) {
    const at = match.index;
    if (at === 0 && match[0] === '\uFEFF') continue;
    if (isVisibleJoiner(text, at, match[0])) continue;
    for (let i = text.indexOf('\n', counted); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) {
      line++;
      lineStart = i + 1;
    }
    counted = at;
    const cp = match[0].codePointAt(0) ?? 0;
    found.push({
      kind: kindOf(cp),
      codePoint: `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`,
      line,
      column: [...text.slice(lineStart, at)].length + 1,
    });
  }
  return found;
}

/**
 * `text` as it may reach the model: without the characters `scanHiddenText` reports (and without a leading BOM,
 * which means nothing to a model). Applied wherever skill text enters the prompt or a tool result (the catalog,
 * `<skill_content>`, activation and resource results, search hits), whatever `limits.hiddenText` says: the
 * warning tells the operator, this makes sure the model never reads what a person cannot see. Text without any
 * of these characters is returned as is (the same string), so the common case costs one regex test.
 */
export function stripHiddenText(text: string): string {
  if (!ANY_HIDDEN.test(text)) return text;
  return text.replace(HIDDEN, (char: string, at: number) => (isVisibleJoiner(text, at, char) ? char : ''));
}

export type HiddenTextSegment = { text: string } | { hidden: string; codePoint: string; kind: HiddenTextKind };

/**
 * `text` cut into visible runs and the hidden characters between them, for a view that must show where they are
 * (a command on an approval card: a bidi override would reorder what the person reads).
 */
export function hiddenTextSegments(text: string): HiddenTextSegment[] {
  const segments: HiddenTextSegment[] = [];
  let from = 0;
  for (const match of text.matchAll(HIDDEN)) {
    const at = match.index;
    if (isVisibleJoiner(text, at, match[0])) continue;
    if (at > from) segments.push({ text: text.slice(from, at) });
    const cp = match[0].codePointAt(0) ?? 0;
    segments.push({
      hidden: match[0],
      codePoint: `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`,
      kind: kindOf(cp),
    });
    from = at + match[0].length;
  }
  if (from < text.length) segments.push({ text: text.slice(from) });
  return segments;
}

/**
 * `value` with `stripHiddenText` applied to every string in it at any depth, object keys included: for JSON from
 * outside (an MCP server's tool schema, structured result or error) whose strings all reach the model. Plain
 * objects and arrays are copied; a value with nothing to strip is returned as it is.
 */
export function stripHiddenDeep<T>(value: T): T {
  return stripped(value, 0) as T;
}

/** Deeper than any schema a model can use: past it a value is dropped rather than walked (a crafted cycle-like depth). */
const MAX_DEPTH = 64;

function stripped(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return stripHiddenText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return null;
  if (Array.isArray(value)) {
    let changed = false;
    const copy = value.map((item) => {
      const next = stripped(item, depth + 1);
      if (next !== item) changed = true;
      return next;
    });
    return changed ? copy : value;
  }
  let changed = false;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const cleanKey = stripHiddenText(key);
    const next = stripped(item, depth + 1);
    if (cleanKey !== key || next !== item) changed = true;
    // defineProperty: a key "__proto__" from JSON stays a plain key.
    Object.defineProperty(copy, cleanKey, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return changed ? copy : value;
}

/** Bytes that start every hidden character's UTF-8 form: a file with none of them needs no decoding to be clean. */
export function mayHaveHiddenText(bytes: Uint8Array): boolean {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // U+E00xx starts F3 A0; U+200x/U+206x start E2 80/E2 81; U+FEFF is EF BB BF; U+061C is D8 9C.
  return buffer.includes(0xf3) || buffer.includes(0xe2) || buffer.includes(0xef) || buffer.includes(0xd8);
}

const KIND_LABEL: Record<HiddenTextKind, string> = {
  tag: 'Unicode tag character',
  bidi: 'bidirectional override',
  'zero-width': 'zero-width character',
};

/** How many findings one diagnostic lists before summarising; a file of tag characters has thousands. */
const LISTED = 5;

/**
 * One diagnostic for a file's findings: `warning` (the skill loads) or `error` when the operator set
 * `limits.hiddenText` to `block`.
 */
export function hiddenTextDiagnostic(
  fileLabel: string,
  findings: readonly HiddenTextFinding[],
  severity: 'warning' | 'error',
): Diagnostic | null {
  if (findings.length === 0) return null;
  const listed = findings
    .slice(0, LISTED)
    .map((f) => `${KIND_LABEL[f.kind]} ${f.codePoint} at line ${f.line}, column ${f.column}`)
    .join('; ');
  const more = findings.length > LISTED ? `; and ${findings.length - LISTED} more` : '';
  return {
    severity,
    code: 'hidden-text',
    message: `${fileLabel} contains ${findings.length} hidden ${findings.length === 1 ? 'character' : 'characters'}: ${listed}${more}`,
    hint:
      severity === 'error'
        ? 'Hidden text is blocked (limits.hiddenText is "block"): remove the characters to load this skill.'
        : 'Text a reader cannot see can still instruct the model: open the file and remove the characters.',
  };
}
