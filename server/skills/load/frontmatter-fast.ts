/**
 * A fast path for the frontmatter almost every skill has: `key: value` lines, values plain, single- or
 * double-quoted on one line, and one level of nested `key: value` lines (`metadata:`). Parsing that with the `yaml`
 * library is most of what a cold scan of many skills costs; this reads it without building a YAML document.
 *
 * It returns the same tree `parseFrontmatterTree` would, or `null` for anything outside that subset (comments,
 * multi-line values, lists, anchors, tags, duplicate keys, reserved first characters, `: ` or ` #` in a plain
 * value, control characters), which then goes through the full parser with its diagnostics and repairs. A
 * differential test holds the two to the same output.
 */
import type { YamlMap } from './frontmatter-tree';

const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/;
const NESTED_LINE = /^( +)([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/;
// Characters YAML treats as line breaks, BOMs or that need escaping: left to the full parser.
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f\u0085\u2028\u2029\ufeff]/;
// Indicators that give a first character a meaning other than "plain text".
const PLAIN_START = /^[^-?:,[\]{}#&*!|>'"%@`\s]/;
const DOUBLE_QUOTED = /^"(?:[^"\\]|\\.)*"$/;
const SINGLE_QUOTED = /^'(?:[^']|'')*'$/;

/**
 * YAML's white space is only space and tab; `String.prototype.trim` also strips NBSP, U+3000 and the other Unicode
 * spaces, which YAML keeps as part of a value.
 */
function trimYaml(text: string, startToo = true): string {
  const white = (i: number) => text.charCodeAt(i) === 0x20 || text.charCodeAt(i) === 0x09;
  let start = 0;
  let end = text.length;
  while (startToo && start < end && white(start)) start++;
  while (end > start && white(end - 1)) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** One scalar on one line (already trimmed), or `null` when the full parser must decide. */
function scalar(raw: string): string | null {
  const first = raw.charCodeAt(0);
  if (first === 0x22 /* " */) {
    if (!DOUBLE_QUOTED.test(raw)) return null;
    try {
      // JSON's escapes are a subset of YAML's with the same meaning; anything else (\x, \e, \U, ...) fails here.
      return JSON.parse(raw) as string;
    } catch {
      return null;
    }
  }
  if (first === 0x27 /* ' */) return SINGLE_QUOTED.test(raw) ? raw.slice(1, -1).replaceAll("''", "'") : null;
  if (!PLAIN_START.test(raw) || raw.includes(': ') || raw.includes(' #') || raw.endsWith(':')) return null;
  return raw;
}

/** The fast path's tree for `yamlText` (the text between the fences, LF line endings), or `null`. */
export function parseSimpleFrontmatter(yamlText: string): YamlMap | null {
  if (UNSAFE.test(yamlText)) return null;
  const tree: YamlMap = new Map();
  const lines = yamlText.split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = trimYaml(lines[i]!, false);
    i++;
    if (line === '') continue;
    const top = KEY_LINE.exec(line);
    if (!top) return null;
    const key = top[1]!;
    if (tree.has(key)) return null;
    const raw = trimYaml(top[2] ?? '');
    if (raw !== '') {
      const value = scalar(raw);
      if (value === null) return null;
      tree.set(key, value);
      continue;
    }
    // `key:` alone: a nested block of `key: value` lines at one indent, or an empty value.
    const nested: YamlMap = new Map();
    let indent = -1;
    while (i < lines.length) {
      const inner = trimYaml(lines[i]!, false);
      if (inner === '') {
        i++;
        continue;
      }
      if (!inner.startsWith(' ')) break;
      const m = NESTED_LINE.exec(inner);
      if (!m) return null;
      if (indent === -1) indent = m[1]!.length;
      else if (m[1]!.length !== indent) return null;
      const innerKey = m[2]!;
      const innerRaw = trimYaml(m[3] ?? '');
      if (innerRaw === '' || nested.has(innerKey)) return null;
      const value = scalar(innerRaw);
      if (value === null) return null;
      nested.set(innerKey, value);
      i++;
    }
    tree.set(key, indent === -1 ? '' : nested);
  }
  return tree.size > 0 ? tree : null;
}
