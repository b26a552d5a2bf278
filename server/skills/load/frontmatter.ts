/**
 * SKILL.md frontmatter: finding it (`splitFrontmatter`) and reading it as YAML (`parseFrontmatter`).
 *
 * Deliberate differences from skills-ref (the reference validator):
 * - A UTF-8 BOM is stripped; skills-ref checks `startswith("---")` on the raw text, so a BOM fails a valid file.
 * - The closing fence is a line that is exactly `---` (or YAML's own document end `...`); skills-ref splits on
 *   the substring `---`, so `description: a---b` becomes `a`.
 * - YAML comes from `yaml` with the failsafe schema instead of strictyaml: every scalar is still a string, but
 *   flow collections (`[a, b]`) and anchors/aliases (capped) are accepted where strictyaml refuses them.
 */
import {
  type Document,
  isMap,
  isPair,
  isScalar,
  LineCounter,
  parseAllDocuments,
  Scalar,
  visit,
  type YAMLError,
} from 'yaml';
import type { Limits } from '../../config';
import type { Diagnostic } from '../types';
import { parseSimpleFrontmatter } from './frontmatter-fast';
import type { YamlMap, YamlValue } from './frontmatter-tree';

export const FRONTMATTER_MESSAGES = {
  missing: 'SKILL.md must start with YAML frontmatter (---)',
  unclosed: 'SKILL.md frontmatter not properly closed with ---',
  notMapping: 'SKILL.md frontmatter must be a YAML mapping',
  invalidYamlPrefix: 'Invalid YAML in frontmatter: ',
} as const;

export type FrontmatterFailureCode =
  | 'frontmatter-missing'
  | 'frontmatter-unclosed'
  | 'frontmatter-too-large'
  | 'frontmatter-not-mapping'
  | 'yaml-invalid';

export type SplitFrontmatterResult =
  | {
      ok: true;
      /** The text between the fences (LF line endings). Its first line is line 2 of the file. */
      yaml: string;
      /** Everything after the closing fence line, untrimmed (LF line endings). */
      body: string;
      /** 1-based line of the file where `body` starts. */
      bodyStartLine: number;
    }
  | { ok: false; code: 'frontmatter-missing' | 'frontmatter-unclosed'; message: string };

/** Strips a UTF-8 BOM and turns CRLF (and lone CR) into LF, so line-based logic sees what YAML sees. */
export function normalizeSkillText(text: string): string {
  const noBom = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return noBom.includes('\r') ? noBom.replace(/\r\n?/g, '\n') : noBom;
}

const OPEN_FENCE = /^---[ \t]*$/;
// `...` is YAML's document-end marker; some generators close frontmatter with it.
const CLOSE_FENCE = /^(?:---|\.\.\.)[ \t]*$/;

export function splitFrontmatter(text: string): SplitFrontmatterResult {
  const normalized = normalizeSkillText(text);
  const firstBreak = normalized.indexOf('\n');
  const firstLine = firstBreak === -1 ? normalized : normalized.slice(0, firstBreak);
  if (!OPEN_FENCE.test(firstLine)) {
    return { ok: false, code: 'frontmatter-missing', message: FRONTMATTER_MESSAGES.missing };
  }
  if (firstBreak === -1) return { ok: false, code: 'frontmatter-unclosed', message: FRONTMATTER_MESSAGES.unclosed };

  let lineStart = firstBreak + 1;
  let lineNumber = 2;
  while (lineStart <= normalized.length) {
    const lineEnd = normalized.indexOf('\n', lineStart);
    const end = lineEnd === -1 ? normalized.length : lineEnd;
    if (CLOSE_FENCE.test(normalized.slice(lineStart, end))) {
      return {
        ok: true,
        yaml: normalized.slice(firstBreak + 1, lineStart),
        body: lineEnd === -1 ? '' : normalized.slice(lineEnd + 1),
        bodyStartLine: lineNumber + 1,
      };
    }
    if (lineEnd === -1) break;
    lineStart = lineEnd + 1;
    lineNumber++;
  }
  return { ok: false, code: 'frontmatter-unclosed', message: FRONTMATTER_MESSAGES.unclosed };
}

export type { YamlMap, YamlValue } from './frontmatter-tree';

export interface ParseFrontmatterOptions {
  /**
   * `lenient` (default): unquoted `: ` and reserved first characters are re-read quoted, tags are ignored;
   * each with a diagnostic. `strict`: skills-ref's view; any of those is invalid YAML.
   */
  mode?: 'lenient' | 'strict';
  /** File line of the first line of `yamlText`, for messages. Default 2 (right after the opening `---`). */
  firstLine?: number;
  /** `false` skips the fast path for simple frontmatter (the differential test compares both). Default true. */
  fastPath?: boolean;
}

export type ParseFrontmatterFailure = { ok: false; code: FrontmatterFailureCode; message: string };

export type ParseFrontmatterTreeResult = { ok: true; tree: YamlMap; recovered: Diagnostic[] } | ParseFrontmatterFailure;

export type ParseFrontmatterResult =
  | { ok: true; data: Record<string, unknown>; recovered: Diagnostic[] }
  | ParseFrontmatterFailure;

const YAML_OPTIONS = {
  version: '1.2',
  schema: 'failsafe',
  merge: false,
  resolveKnownTags: false,
  uniqueKeys: true,
  strict: true,
  logLevel: 'silent',
  stringKeys: true,
  prettyErrors: false,
} as const;

/** Alias expansions allowed per document (yaml's default, stated so a change upstream cannot loosen it). */
const MAX_ALIAS_COUNT = 100;

/** Every repair quotes a different line, so this only bounds pathological inputs. */
const MAX_REPAIRS = 50;

const RECOVERABLE_ERRORS = new Set(['BLOCK_AS_IMPLICIT_KEY', 'MULTILINE_IMPLICIT_KEY', 'BAD_SCALAR_START']);

/**
 * Parses frontmatter YAML into plain data. Maps are null-prototype objects, so a `__proto__` key is an ordinary
 * own property; copy known keys out of `data` rather than spreading it into something with a prototype.
 */
export function parseFrontmatter(
  yamlText: string,
  limits: Pick<Limits, 'maxFrontmatterBytes'>,
  options: ParseFrontmatterOptions = {},
): ParseFrontmatterResult {
  const result = parseFrontmatterTree(yamlText, limits, options);
  if (!result.ok) return result;
  return { ok: true, data: toPlainRecord(result.tree), recovered: result.recovered };
}

/** Like `parseFrontmatter`, but keeps maps as `Map`s so key order survives exactly (for skills-ref's JSON). */
export function parseFrontmatterTree(
  yamlText: string,
  limits: Pick<Limits, 'maxFrontmatterBytes'>,
  options: ParseFrontmatterOptions = {},
): ParseFrontmatterTreeResult {
  const mode = options.mode ?? 'lenient';
  const firstLine = options.firstLine ?? 2;
  const bytes = Buffer.byteLength(yamlText, 'utf8');
  if (bytes > limits.maxFrontmatterBytes) {
    return {
      ok: false,
      code: 'frontmatter-too-large',
      message: `Frontmatter is ${bytes} bytes; the limit is ${limits.maxFrontmatterBytes} bytes (limits.maxFrontmatterBytes)`,
    };
  }

  const normalizedText = normalizeSkillText(yamlText);
  // Most frontmatter is plain `key: value` lines; the fast path reads those exactly as yaml would, for a
  // fraction of what loading and running yaml's parser costs.
  const simple = options.fastPath === false ? null : parseSimpleFrontmatter(normalizedText);
  if (simple) return { ok: true, tree: simple, recovered: [] };

  let lines = normalizedText.split('\n');
  const recovered: Diagnostic[] = [];
  const repairedLines = new Set<number>();
  let firstFailure: ParseFrontmatterFailure | null = null;

  for (let attempt = 0; attempt <= MAX_REPAIRS; attempt++) {
    const lineCounter = new LineCounter();
    const docs = parseAllDocuments(lines.join('\n'), { ...YAML_OPTIONS, lineCounter });
    const where = (offset: number) => {
      const pos = lineCounter.linePos(offset);
      return `line ${pos.line + firstLine - 1}, column ${pos.col}`;
    };
    if (docs.length > 1) {
      const start = docs[1]?.range[0] ?? 0;
      return invalidYaml(`the frontmatter holds more than one YAML document (${where(start)})`);
    }
    const doc = docs[0];
    if (!doc) return { ok: false, code: 'frontmatter-not-mapping', message: FRONTMATTER_MESSAGES.notMapping };

    const error = doc.errors[0];
    if (error) {
      const failure = invalidYaml(`${error.message} at ${where(error.pos[0])}`);
      firstFailure ??= failure;
      const lineIndex = lineCounter.linePos(error.pos[0]).line - 1;
      // A line that still fails after quoting: the original error is the one to fix. Any other error is
      // reported as itself, since it is what stops the skill loading (earlier repairs keep line numbers).
      if (repairedLines.has(lineIndex)) return firstFailure;
      if (mode === 'strict' || !RECOVERABLE_ERRORS.has(error.code)) return failure;
      const repair = quoteLineValue(lines, lineIndex);
      if (!repair) return failure;
      for (let i = 0; i < repair.lineCount; i++) repairedLines.add(lineIndex + i);
      lines = repair.lines;
      recovered.push(repairDiagnostic(repair, lineIndex + firstLine, error));
      continue;
    }

    // Every explicit tag, the schema's own (`!!str`, `!<tag:yaml.org,2002:str>`) included: strictyaml refuses them
    // all, and a known tag is no more plain text than an unknown one.
    const tags = explicitTags(doc, lines.join('\n'));
    const tag = tags[0];
    if (tag && mode === 'strict') {
      return invalidYaml(`tags are not allowed (${tag.text}) at ${where(tag.offset)}`);
    }
    for (const { text, offset } of tags) {
      recovered.push({
        severity: 'warning',
        code: 'yaml-tag-ignored',
        message: `The YAML tag ${text} at ${where(offset)} was ignored; the value was read as plain text.`,
        hint: 'Remove the tag: frontmatter values are plain strings.',
      });
    }

    if (!isMap(doc.contents)) {
      return { ok: false, code: 'frontmatter-not-mapping', message: FRONTMATTER_MESSAGES.notMapping };
    }
    recovered.push(...commentTruncations(doc, where));

    let js: unknown;
    try {
      js = doc.toJS({ mapAsMap: true, maxAliasCount: MAX_ALIAS_COUNT });
    } catch (caught) {
      // yaml throws a ReferenceError for alias bombs and unresolvable aliases.
      return invalidYaml(caught instanceof Error ? caught.message : String(caught));
    }
    const tree = toYamlValue(js, new Set());
    if (tree === null) return invalidYaml('an alias refers to the collection that contains it');
    if (!(tree instanceof Map)) {
      return { ok: false, code: 'frontmatter-not-mapping', message: FRONTMATTER_MESSAGES.notMapping };
    }
    return { ok: true, tree, recovered };
  }
  return firstFailure ?? invalidYaml('too many problems to recover from');
}

function invalidYaml(detail: string): ParseFrontmatterFailure {
  return { ok: false, code: 'yaml-invalid', message: FRONTMATTER_MESSAGES.invalidYamlPrefix + detail };
}

/**
 * The explicit tags of a document, in source order, as written. yaml keeps a node's resolved tag but not where the
 * tag was written, so it is read back from the source: the last property token before the node's content,
 * skipping an anchor (`!!str &a x`).
 */
function explicitTags(doc: Document, source: string): Array<{ text: string; offset: number }> {
  const found: Array<{ text: string; offset: number }> = [];
  visit(doc, {
    Node(_key, node) {
      if (!node.tag || !node.range) return;
      let end = node.range[0];
      for (;;) {
        while (end > 0 && /\s/.test(source[end - 1]!)) end--;
        let start = end;
        while (start > 0 && !/\s/.test(source[start - 1]!)) start--;
        const token = source.slice(start, end);
        if (token.startsWith('&') && start > 0) {
          end = start;
          continue;
        }
        found.push({ text: token.startsWith('!') ? token : node.tag, offset: token.startsWith('!') ? start : end });
        return;
      }
    },
  });
  return found.sort((a, b) => a.offset - b.offset);
}

/** Converts yaml's `toJS` output to `YamlValue`; `null` when an alias makes a cycle. */
function toYamlValue(value: unknown, ancestors: Set<object>): YamlValue | null {
  if (typeof value === 'string') return value;
  // The failsafe schema only yields strings; an empty node comes out as `null` and reads as ''.
  if (value === null || value === undefined) return '';
  if (Array.isArray(value) || value instanceof Map) {
    if (ancestors.has(value)) return null;
    ancestors.add(value);
    try {
      if (Array.isArray(value)) {
        const list: YamlValue[] = [];
        for (const item of value) {
          const converted = toYamlValue(item, ancestors);
          if (converted === null) return null;
          list.push(converted);
        }
        return list;
      }
      const map: YamlMap = new Map();
      for (const [key, item] of value) {
        const converted = toYamlValue(item, ancestors);
        if (converted === null) return null;
        map.set(String(key), converted);
      }
      return map;
    } finally {
      ancestors.delete(value);
    }
  }
  return String(value);
}

/** Plain copy with null-prototype maps: `__proto__` stays data, never a prototype. */
export function toPlainRecord(map: YamlMap): Record<string, unknown> {
  const record: Record<string, unknown> = Object.create(null);
  for (const [key, value] of map) record[key] = toPlain(value);
  return record;
}

function toPlain(value: YamlValue): unknown {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(toPlain);
  return toPlainRecord(value);
}

interface LineRepair {
  lines: string[];
  key: string;
  firstValueLine: string;
  lineCount: number;
}

const KEY_VALUE_LINE = /^( *)([A-Za-z0-9_][\w.-]*):[ \t]+(\S.*)$/;
// Values starting with these already mean something else in YAML; quoting them would change the data's shape.
const NOT_PLAIN_START = /^["'|>&*!#[{]/;

/**
 * Re-reads the plain value starting on `lines[index]` (and its more-indented continuation lines) as one
 * double-quoted scalar. The line count is unchanged, so later line numbers stay right, and YAML folds a
 * multi-line double-quoted scalar exactly like the plain one it replaces.
 */
function quoteLineValue(lines: string[], index: number): LineRepair | null {
  const match = KEY_VALUE_LINE.exec(lines[index] ?? '');
  if (!match) return null;
  const indent = match[1] ?? '';
  const key = match[2] ?? '';
  const value = match[3] ?? '';
  if (NOT_PLAIN_START.test(value)) return null;

  let last = index;
  for (let i = index + 1; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.trim() === '') continue;
    if (line.length - line.trimStart().length <= indent.length) break;
    last = i;
  }
  const escapeQuoted = (text: string) => text.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
  const next = [...lines];
  const opening = `${indent}${key}: "${escapeQuoted(value)}`;
  if (last === index) {
    next[index] = `${opening.trimEnd()}"`;
  } else {
    next[index] = opening;
    for (let i = index + 1; i <= last; i++) {
      const line = escapeQuoted(lines[i] ?? '');
      next[i] = i === last ? `${line.trimEnd()}"` : line;
    }
  }
  return { lines: next, key, firstValueLine: value.trimEnd(), lineCount: last - index + 1 };
}

function repairDiagnostic(repair: LineRepair, fileLine: number, error: YAMLError): Diagnostic {
  const colon = error.code !== 'BAD_SCALAR_START';
  const shown = repair.firstValueLine.length > 60 ? `${repair.firstValueLine.slice(0, 57)}...` : repair.firstValueLine;
  const span = repair.lineCount > 1 ? `lines ${fileLine}-${fileLine + repair.lineCount - 1}` : `line ${fileLine}`;
  return {
    severity: 'info',
    code: colon ? 'yaml-recovered-colon' : 'yaml-recovered-quoted',
    message: colon
      ? `The value of '${repair.key}' (${span}) contains ': ', which YAML reads as a nested mapping; it was re-read as a quoted string.`
      : `The value of '${repair.key}' (${span}) starts with a character YAML reserves; it was re-read as a quoted string.`,
    hint: `Quote the value: ${repair.key}: ${JSON.stringify(shown)}`,
  };
}

/**
 * ` #` starts a YAML comment, so `description: C# and #hashtags` reads as `C# and`. That is YAML (and
 * skills-ref does the same), so the value is kept as parsed; the diagnostic says what was dropped.
 */
function commentTruncations(doc: Document, where: (offset: number) => string): Diagnostic[] {
  const found: Diagnostic[] = [];
  if (!isMap(doc.contents)) return found;
  for (const pair of doc.contents.items) {
    if (!isPair(pair) || !isScalar(pair.key) || pair.key.value !== 'description') continue;
    const value = pair.value;
    if (!isScalar(value) || value.type !== Scalar.PLAIN || !value.comment) continue;
    const offset = value.range?.[1] ?? 0;
    found.push({
      severity: 'info',
      code: 'yaml-comment-truncated',
      message: `The description was cut at ' #' (${where(offset)}): YAML reads '#${value.comment.split('\n')[0]}' as a comment.`,
      hint: 'Quote the description to keep text after " #".',
    });
  }
  return found;
}
