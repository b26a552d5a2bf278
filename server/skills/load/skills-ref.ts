/**
 * The skills-ref CLI's three commands (`validate`, `read-properties`, `to-prompt`) reproduced over our parser,
 * so `bin/skills` prints what `skills-ref` prints. Synchronous, like the Python it mirrors.
 *
 * Deliberate differences (each also noted where it happens):
 * - A UTF-8 BOM is stripped and the closing fence must be a `---` (or `...`) line of its own (see frontmatter.ts).
 * - YAML problems are worded by `yaml`, not strictyaml: `Invalid YAML in frontmatter: <yaml's message>`. Flow
 *   collections (`[a, b]`) and anchors are accepted; explicit tags are still refused, as strictyaml does.
 * - The name/folder match uses the resolved folder name, so `validate .` works (skills-ref compares with '').
 * - Files over `DEFAULT_LIMITS` are refused with our own message instead of being read whole.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Limits } from '../../config';
import { DEFAULT_LIMITS } from '../../limits';
import { parseFrontmatterTree, splitFrontmatter, toPlainRecord, type YamlMap, type YamlValue } from './frontmatter';
import { findSkillFile, MISSING_SKILL_FILE_MESSAGE, readSkillFileSync } from './skill-file';
import { pyStrip, validateMetadata } from './validate';

/** A failure skills-ref reports as `SkillError`; the CLI prints `Error: ${message}` and exits 1. */
export class SkillRefError extends Error {
  override name = 'SkillRefError';
}

type RefLimits = Pick<Limits, 'maxSkillFileBytes' | 'maxFrontmatterBytes'>;

/** Python's `str(PurePosixPath(p))`: no empty or `.` segments, no trailing slash, `.` for nothing. */
export function pythonPathString(p: string): string {
  const root = p.startsWith('//') && !p.startsWith('///') ? '//' : p.startsWith('/') ? '/' : '';
  const parts = p.split('/').filter((part) => part !== '' && part !== '.');
  return root + parts.join('/') || '.';
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * The skill folder a CLI argument names, printed the way skills-ref prints it: a path to a `SKILL.md` (any case)
 * means its folder. The CLI uses this in `Valid skill: P` / `Validation failed for P:`.
 */
export function skillDirArgument(p: string): string {
  const normalized = pythonPathString(p);
  if (isFile(normalized) && path.basename(normalized).toLowerCase() === 'skill.md') {
    const parent = path.posix.dirname(normalized);
    return normalized.startsWith('//') && parent === '/' ? '//' : parent;
  }
  return normalized;
}

type Loaded = { ok: true; tree: YamlMap } | { ok: false; message: string };

function loadTree(file: string, limits: RefLimits): Loaded {
  const read = readSkillFileSync(file, limits.maxSkillFileBytes);
  if (!read.ok) return read;
  const split = splitFrontmatter(read.text);
  if (!split.ok) return split;
  // Strict: an unquoted `: ` is invalid YAML to skills-ref, so it is here (loadSkill recovers it instead).
  return parseFrontmatterTree(split.yaml, limits, { mode: 'strict' });
}

/** skills-ref `validate`: the problems it would print (one per `  - ` line), or `[]` for a valid skill. */
export function validatePath(p: string, limits: RefLimits = DEFAULT_LIMITS): string[] {
  const dir = skillDirArgument(p);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    return [`Path does not exist: ${dir}`];
  }
  if (!stat.isDirectory()) return [`Not a directory: ${dir}`];
  const file = findSkillFile(dir);
  if (!file) return [MISSING_SKILL_FILE_MESSAGE];
  const loaded = loadTree(file, limits);
  if (!loaded.ok) return [loaded.message];
  // Differs on purpose: the resolved name, so `.` and `..` compare with the real folder name.
  return validateMetadata(toPlainRecord(loaded.tree), path.basename(path.resolve(dir))).map((d) => d.message);
}

/** `SkillProperties.to_dict()`: known keys in skills-ref's order, values as parsed. */
type Properties = Map<string, YamlValue>;

function readPropertiesOf(dir: string, limits: RefLimits): Properties {
  const file = findSkillFile(dir);
  if (!file) throw new SkillRefError(`SKILL.md not found in ${dir}`);
  const loaded = loadTree(file, limits);
  if (!loaded.ok) throw new SkillRefError(loaded.message);
  const tree = loaded.tree;

  const name = tree.get('name');
  const description = tree.get('description');
  if (name === undefined) throw new SkillRefError('Missing required field in frontmatter: name');
  if (description === undefined) throw new SkillRefError('Missing required field in frontmatter: description');
  if (typeof name !== 'string' || pyStrip(name) === '') {
    throw new SkillRefError("Field 'name' must be a non-empty string");
  }
  if (typeof description !== 'string' || pyStrip(description) === '') {
    throw new SkillRefError("Field 'description' must be a non-empty string");
  }

  const props: Properties = new Map();
  props.set('name', pyStrip(name));
  props.set('description', pyStrip(description));
  for (const key of ['license', 'compatibility', 'allowed-tools']) {
    const value = tree.get(key);
    if (value !== undefined) props.set(key, value);
  }
  let metadata = tree.get('metadata');
  // parser.py: `{str(k): str(v) for ...}` when metadata is a mapping; anything else passes through as is.
  if (metadata instanceof Map) metadata = new Map([...metadata].map(([k, v]) => [k, pythonStr(v)]));
  if (metadata !== undefined && isTruthy(metadata)) props.set('metadata', metadata);
  return props;
}

function isTruthy(value: YamlValue): boolean {
  return typeof value === 'string' || Array.isArray(value) ? value.length > 0 : value.size > 0;
}

/** skills-ref `read-properties`: the JSON it prints, or the message it prints after `Error: `. */
export function readProperties(
  p: string,
  limits: RefLimits = DEFAULT_LIMITS,
): { ok: true; json: string } | { ok: false; error: string } {
  try {
    return { ok: true, json: pythonJsonDumps(readPropertiesOf(skillDirArgument(p), limits)) };
  } catch (error) {
    if (error instanceof SkillRefError) return { ok: false, error: error.message };
    throw error;
  }
}

/**
 * skills-ref `to-prompt`: the `<available_skills>` block. Throws `SkillRefError` on the first skill that cannot
 * be read (skills-ref stops there too). Folders are resolved (realpath) first, so `location` is absolute.
 */
export function toPrompt(paths: readonly string[], limits: RefLimits = DEFAULT_LIMITS): string {
  if (paths.length === 0) return '<available_skills>\n</available_skills>';
  const lines = ['<available_skills>'];
  for (const p of paths) {
    const dir = resolvePath(skillDirArgument(p));
    const props = readPropertiesOf(dir, limits);
    const file = findSkillFile(dir) ?? path.join(dir, 'SKILL.md');
    lines.push(
      '<skill>',
      '<name>',
      htmlEscape(String(props.get('name'))),
      '</name>',
      '<description>',
      htmlEscape(String(props.get('description'))),
      '</description>',
      '<location>',
      // skills-ref prints the path raw (only name and description go through html.escape).
      file,
      '</location>',
      '</skill>',
    );
  }
  lines.push('</available_skills>');
  return lines.join('\n');
}

/** Python's `Path.resolve()` (non-strict): symlinks resolved as far as the path exists. */
function resolvePath(p: string): string {
  const absolute = path.resolve(p);
  try {
    return fs.realpathSync(absolute);
  } catch {
    return absolute;
  }
}

/** Python's `html.escape(s)` (quote=True). */
export function htmlEscape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#x27;');
}

/** Python's `str(v)` for parsed YAML: strings as themselves, collections as their `repr`. */
export function pythonStr(value: YamlValue): string {
  return typeof value === 'string' ? value : pythonRepr(value);
}

const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function pythonStringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    if (char === '\\' || char === quote) out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (char !== ' ' && NOT_PRINTABLE.test(char)) {
      const code = char.codePointAt(0) ?? 0;
      out +=
        code < 0x100
          ? `\\x${code.toString(16).padStart(2, '0')}`
          : code < 0x10000
            ? `\\u${code.toString(16).padStart(4, '0')}`
            : `\\U${code.toString(16).padStart(8, '0')}`;
    } else out += char;
  }
  return out + quote;
}

function pythonRepr(value: YamlValue): string {
  if (typeof value === 'string') return pythonStringRepr(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  return `{${[...value].map(([k, v]) => `${pythonStringRepr(k)}: ${pythonRepr(v)}`).join(', ')}}`;
}

/** Python's `json.dumps(s)` for a string (ensure_ascii: everything outside space..`~` escaped, lowercase hex). */
function pythonJsonString(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const char = text[i] ?? '';
    if (char === '"') out += '\\"';
    else if (char === '\\') out += '\\\\';
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (char === '\b') out += '\\b';
    else if (char === '\f') out += '\\f';
    // UTF-16 units, so astral characters come out as surrogate pairs, as Python writes them.
    else if (unit < 0x20 || unit > 0x7e) out += `\\u${unit.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

/** Python's `json.dumps(value, indent=2)`, keeping Map order (JS objects would put numeric keys first). */
export function pythonJsonDumps(value: YamlValue, level = 0): string {
  if (typeof value === 'string') return pythonJsonString(value);
  const entries: string[] = Array.isArray(value)
    ? value.map((item) => pythonJsonDumps(item, level + 1))
    : [...value].map(([k, v]) => `${pythonJsonString(k)}: ${pythonJsonDumps(v, level + 1)}`);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) return open + close;
  const inner = `\n${'  '.repeat(level + 1)}`;
  return `${open}${inner}${entries.join(`,${inner}`)}\n${'  '.repeat(level)}${close}`;
}
