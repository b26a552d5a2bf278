/**
 * Reading one skill folder into a `Skill`, leniently (the client guide's advice): a skill is dropped only when it
 * has no readable SKILL.md, its frontmatter cannot be parsed, or it has no description. Every other spec problem
 * stays on `skill.diagnostics` as a warning.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import type { Limits } from '../../config';
import type { Diagnostic, Skill, SkillFrontmatter, SkillScope } from '../types';
import type { DiagnosticCode } from './diagnostics';
import { recogniseExtensions } from './extensions';
import { parseFrontmatterTree, splitFrontmatter, toPlainRecord, type YamlMap, type YamlValue } from './frontmatter';
import { hiddenTextDiagnostic, mayHaveHiddenText, scanHiddenText, stripHiddenText } from './hidden-text';
import { instructionLikeDiagnostic } from './instruction-like';
import { unshared } from './unshared';
import { normalizeSkillName, pyStrip, validateMetadata } from './validate';

/** In preference order: `SKILL.md` wins when both exist. */
export const SKILL_FILE_NAMES = ['SKILL.md', 'skill.md'] as const;

export const MISSING_SKILL_FILE_MESSAGE = 'Missing required file: SKILL.md';

/**
 * Errors for which Python's `Path.exists()` says "does not exist" rather than raising: a symlink loop named
 * SKILL.md is absent, so skills-ref goes on to `skill.md`.
 */
export function isAbsentCode(code: string | undefined): boolean {
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'EBADF';
}

type Located = { kind: 'found'; file: string } | { kind: 'missing' } | { kind: 'error'; message: string };

function locateSkillFile(dir: string): Located {
  for (const name of SKILL_FILE_NAMES) {
    const file = path.join(/*turbopackIgnore: true*/ dir, name);
    try {
      // Like skills-ref's `exists()`: the first name that exists wins, even if it turns out not to be a file
      // (then reading it reports why, rather than silently falling back to the other name).
      fs.statSync(/*turbopackIgnore: true*/ file);
      return { kind: 'found', file };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (!isAbsentCode(code)) {
        return { kind: 'error', message: `Cannot read ${name}: ${code ?? (error as Error).message}` };
      }
    }
  }
  return { kind: 'missing' };
}

/** Absolute path of the folder's `SKILL.md` (or `skill.md`), or `null` when there is neither. */
export function findSkillFile(dir: string): string | null {
  const located = locateSkillFile(path.resolve(dir));
  return located.kind === 'found' ? located.file : null;
}

export type SkillFileRead =
  | { ok: true; text: string; size: number; mtimeMs: number; invalidUtf8: boolean }
  | { ok: false; code: 'skill-file-unreadable' | 'skill-file-not-regular' | 'skill-file-too-large'; message: string };

// O_NONBLOCK keeps a FIFO named SKILL.md from blocking a libuv thread; Windows lacks it (then it is 0).
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

type SkillFileFailure = Extract<SkillFileRead, { ok: false }>;

function tooLarge(file: string, size: string, maxBytes: number): SkillFileFailure {
  return {
    ok: false,
    code: 'skill-file-too-large',
    message: `${path.basename(file)} is ${size} bytes; the limit is ${maxBytes} bytes (limits.maxSkillFileBytes)`,
  };
}

function unreadable(file: string, error: unknown): SkillFileFailure {
  const code = (error as NodeJS.ErrnoException).code;
  return {
    ok: false,
    code: 'skill-file-unreadable',
    message: `Cannot read ${path.basename(file)}: ${code ?? (error as Error).message}`,
  };
}

function notRegular(file: string): SkillFileFailure {
  return { ok: false, code: 'skill-file-not-regular', message: `${path.basename(file)} is not a regular file` };
}

function decode(bytes: Buffer, stat: Pick<SkillFileStat, 'size' | 'mtimeMs'>): SkillFileRead {
  // ignoreBOM keeps a BOM in the text so splitFrontmatter (the one place that handles it) sees it.
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    return { ok: true, text, size: stat.size, mtimeMs: stat.mtimeMs, invalidUtf8: false };
  } catch {
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
    return { ok: true, text, size: stat.size, mtimeMs: stat.mtimeMs, invalidUtf8: true };
  }
}

/**
 * Reads at most `maxBytes` of a skill file. The size is checked on the opened descriptor (not the path), and at
 * most `maxBytes + 1` bytes are read, so a file that grows, or a device behind a symlink, cannot blow the cap.
 */
export async function readSkillFile(file: string, maxBytes: number): Promise<SkillFileRead> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, OPEN_FLAGS);
  } catch (error) {
    return unreadable(file, error);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return notRegular(file);
    if (stat.size > maxBytes) return tooLarge(file, String(stat.size), maxBytes);
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes) + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > maxBytes) return tooLarge(file, `over ${maxBytes}`, maxBytes);
    return decode(buffer.subarray(0, filled), stat);
  } catch (error) {
    return unreadable(file, error);
  } finally {
    await handle.close().catch(() => {});
  }
}

/** What a skill file's stat says about it: enough to read it and to key the parse in the scan cache. */
export interface SkillFileStat {
  size: number;
  mtimeMs: number;
  isFile: boolean;
}

type SkillBytesRead = { ok: true; bytes: Buffer; stat: SkillFileStat } | SkillFileFailure;

/** The bytes of a skill file, at most `maxBytes`, synchronously (see `readSkillFile` for the checks). */
// loadSkill reads into one reused buffer: its bytes are decoded before anything else can run, and a cold scan of
// thousands of skills would otherwise allocate (and collect) a buffer per file.
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * The bytes of a skill file, at most `maxBytes`, synchronously (see `readSkillFile` for the checks). With `reuse`,
 * the bytes live in a shared buffer that the next call overwrites: use them before any `await`. `known`: the file's
 * stat taken just before (discovery's walk), instead of one on the descriptor. Reading stops at the size the stat
 * said, without a read that finds the end: bytes the file gained since are as unseen as those written after.
 */
function readSkillBytesSync(file: string, maxBytes: number, reuse = false, known?: SkillFileStat): SkillBytesRead {
  let fd: number;
  try {
    fd = fs.openSync(file, OPEN_FLAGS);
  } catch (error) {
    return unreadable(file, error);
  }
  try {
    let stat = known;
    if (!stat) {
      const fstat = fs.fstatSync(fd);
      stat = { size: fstat.size, mtimeMs: fstat.mtimeMs, isFile: fstat.isFile() };
    }
    if (!stat.isFile) return notRegular(file);
    if (stat.size > maxBytes) return tooLarge(file, String(stat.size), maxBytes);
    const wanted = Math.min(stat.size, maxBytes) + 1;
    if (reuse && scratch.length < wanted) scratch = Buffer.allocUnsafe(Math.max(wanted, scratch.length * 2));
    const buffer = reuse ? scratch.subarray(0, wanted) : Buffer.allocUnsafe(wanted);
    let filled = 0;
    while (filled < buffer.length) {
      const bytesRead = fs.readSync(fd, buffer, filled, buffer.length - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === stat.size) break;
    }
    if (filled > maxBytes) return tooLarge(file, `over ${maxBytes}`, maxBytes);
    return { ok: true, bytes: buffer.subarray(0, filled), stat };
  } catch (error) {
    return unreadable(file, error);
  } finally {
    fs.closeSync(fd);
  }
}

/** `readSkillFile` for synchronous callers (the skills-ref compatible CLI). */
export function readSkillFileSync(file: string, maxBytes: number): SkillFileRead {
  const read = readSkillBytesSync(file, maxBytes);
  return read.ok ? decode(read.bytes, read.stat) : read;
}

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

const DASHES = Buffer.from('\n---');
const DOTS = Buffer.from('\n...');

/** Where the line holding the first candidate closing fence (`---` or `...` at a line start) ends, or -1. */
function firstFenceLineEnd(bytes: Buffer): number {
  // Needles as bytes (a string needle is encoded on every call), and `...` looked for only before the first `---`.
  const dashes = bytes.indexOf(DASHES, 1);
  const dots = (dashes === -1 ? bytes : bytes.subarray(0, dashes + DOTS.length - 1)).indexOf(DOTS, 1);
  const at = dashes === -1 ? dots : dots === -1 ? dashes : Math.min(dashes, dots);
  if (at === -1) return -1;
  const end = bytes.indexOf(0x0a, at + 4);
  return end === -1 ? bytes.length : end + 1;
}

/**
 * The frontmatter split of a skill file's bytes, decoding only up to the first line that may close it (the body is
 * not needed to load a skill); when that line is no fence after all, the whole text. Whole lines only, so every
 * outcome matches `splitFrontmatter(wholeText)`.
 */
function splitSkillBytes(bytes: Buffer): ReturnType<typeof splitFrontmatter> {
  const end = firstFenceLineEnd(bytes);
  if (end > 0 && end < bytes.length) {
    const head = splitFrontmatter(decoder.decode(bytes.subarray(0, end)));
    if (head.ok) return head;
  }
  return splitFrontmatter(decoder.decode(bytes));
}

export interface LoadSkillOptions {
  /** Absolute path of the root the folder was found under. */
  root: string;
  scope: SkillScope;
  /** The folder's path relative to the root (posix separators). */
  relDir: string;
  limits: Pick<Limits, 'maxSkillFileBytes' | 'maxFrontmatterBytes'> & Partial<Pick<Limits, 'hiddenText'>>;
  /**
   * The folder's real path and its skill file, when the caller has just resolved them (discovery's walk), and the
   * file's stat if it took one: saves a realpath and two stats per skill on a cold scan.
   */
  resolved?: { realDir: string; file: string; stat?: SkillFileStat };
}

export interface LoadSkillResult {
  skill: Skill | null;
  /** Every diagnostic about this folder: the `error`s when `skill` is null, else the same list as `skill.diagnostics`. */
  diagnostics: Diagnostic[];
}

const HINTS: Record<string, string> = {
  'skill-dir-unreadable': 'Check that the folder exists and is readable by the server.',
  'skill-file-missing': 'Add a SKILL.md with `name` and `description` frontmatter.',
  'skill-file-unreadable': 'Check the file permissions.',
  'skill-file-not-regular': 'SKILL.md must be a regular file (or a symlink to one).',
  'skill-file-too-large': 'Move long content into files under references/ and link them from SKILL.md.',
  'frontmatter-missing': 'Start the file with a line `---`, the YAML fields, then another `---` line.',
  'frontmatter-unclosed': 'End the frontmatter with a line that is exactly `---`.',
  'frontmatter-too-large': 'Keep the frontmatter to name, description and a few short fields.',
  'frontmatter-not-mapping': 'Write the frontmatter as `key: value` lines.',
  'yaml-invalid': 'Fix the YAML at the reported line; quote values that contain special characters.',
};

/**
 * Loads one skill folder. `dir` is the folder as found under the root (its name is what `name` must match);
 * the Skill's `dir` is its real path. Never throws for problems with the folder's content.
 */
export async function loadSkill(dir: string, options: LoadSkillOptions): Promise<LoadSkillResult> {
  const absDir = path.resolve(dir);
  const diagnostics: Diagnostic[] = [];
  let skillDir = absDir;
  // What the skill keeps of its file is copied (unshared.ts), messages quoting it included, so the text can go.
  const add = (d: Diagnostic) => diagnostics.push({ ...d, message: unshared(d.message), skillDir, root: options.root });
  const fail = (code: DiagnosticCode, message: string): LoadSkillResult => {
    add({ severity: 'error', code, message, hint: HINTS[code] });
    return { skill: null, diagnostics };
  };

  let file: string;
  if (options.resolved) {
    skillDir = options.resolved.realDir;
    file = options.resolved.file;
  } else {
    try {
      skillDir = await fs.promises.realpath(absDir);
    } catch (error) {
      return fail('skill-dir-unreadable', `Cannot read the skill folder: ${(error as NodeJS.ErrnoException).code}`);
    }
    const located = locateSkillFile(skillDir);
    if (located.kind === 'missing') return fail('skill-file-missing', MISSING_SKILL_FILE_MESSAGE);
    if (located.kind === 'error') return fail('skill-file-unreadable', located.message);
    file = located.file;
  }

  // Synchronous: one small file read costs microseconds, while the async API's thread-pool round trips made a cold
  // scan of 10,000 skills three times slower. The body is only checked for valid UTF-8, never decoded.
  const read = readSkillBytesSync(file, options.limits.maxSkillFileBytes, true, options.resolved?.stat);
  if (!read.ok) return fail(read.code, read.message);
  // Most skill files are ASCII: valid UTF-8 with no hidden character, told in one pass instead of five.
  const ascii = isAscii(read.bytes);
  if (!ascii && !isUtf8(read.bytes)) {
    add({
      severity: 'warning',
      code: 'skill-file-invalid-utf8',
      message: `${path.basename(file)} is not valid UTF-8; invalid bytes were replaced with U+FFFD`,
      hint: 'Save the file as UTF-8.',
    });
  }
  if (!ascii && mayHaveHiddenText(read.bytes)) {
    const block = options.limits.hiddenText === 'block';
    const hidden = hiddenTextDiagnostic(
      path.basename(file),
      scanHiddenText(decoder.decode(read.bytes)),
      block ? 'error' : 'warning',
    );
    if (hidden) add(hidden);
    if (hidden && block) return { skill: null, diagnostics };
  }

  const split = splitSkillBytes(read.bytes);
  if (!split.ok) return fail(split.code, split.message);
  const parsed = parseFrontmatterTree(split.yaml, options.limits);
  if (!parsed.ok) return fail(parsed.code, parsed.message);
  for (const d of parsed.recovered) add(d);

  const tree = parsed.tree;
  const data = toPlainRecord(tree);
  const dirName = path.basename(absDir);
  const checks = recogniseExtensions(validateMetadata(data, dirName), data);
  for (const d of checks) add(d);
  const frontmatter = copyFrontmatter(tree, add);

  if (checks.some((d) => d.severity === 'error') || frontmatter.description === undefined) {
    return { skill: null, diagnostics };
  }

  // Checked as the model reads it: hidden characters inside "ign\u200Bore" must not hide the words.
  const instructionLike = instructionLikeDiagnostic({
    description: stripHiddenText(frontmatter.description),
    when_to_use: frontmatter.when_to_use === undefined ? undefined : stripHiddenText(frontmatter.when_to_use),
  });
  if (instructionLike) add(instructionLike);

  const declared = typeof frontmatter.name === 'string' ? normalizeSkillName(frontmatter.name) : '';
  const skill: Skill = {
    name: declared || unshared(dirName),
    description: pyStrip(frontmatter.description),
    dir: skillDir,
    file,
    root: options.root,
    relDir: options.relDir,
    scope: options.scope,
    frontmatter,
    size: read.stat.size,
    mtimeMs: read.stat.mtimeMs,
    diagnostics,
  };
  return { skill, diagnostics };
}

function joinStrings(items: YamlValue[]): string | null {
  return items.every((item): item is string => typeof item === 'string') ? items.join(' ') : null;
}

/** Copies the known fields that have the right type; reports the ones skills-ref does not check. */
function copyFrontmatter(tree: YamlMap, add: (d: Diagnostic) => void): SkillFrontmatter {
  const frontmatter: SkillFrontmatter = {};
  const name = tree.get('name');
  if (typeof name === 'string') frontmatter.name = unshared(name);
  const description = tree.get('description');
  if (typeof description === 'string' && pyStrip(description) !== '') frontmatter.description = unshared(description);

  const license = tree.get('license');
  if (typeof license === 'string') frontmatter.license = unshared(license);
  else if (license !== undefined) {
    add({
      severity: 'warning',
      code: 'license-not-string',
      message: "Field 'license' must be a string; it was ignored",
      hint: 'Use a license name (e.g. `license: MIT`) or a reference to a bundled license file.',
    });
  }

  // A non-string compatibility is already reported by validateMetadata (skills-ref has a message for it).
  const compatibility = tree.get('compatibility');
  if (typeof compatibility === 'string') frontmatter.compatibility = unshared(compatibility);

  const allowedTools = tree.get('allowed-tools');
  if (typeof allowedTools === 'string') frontmatter['allowed-tools'] = unshared(allowedTools);
  else if (allowedTools !== undefined) {
    const joined = Array.isArray(allowedTools) ? joinStrings(allowedTools) : null;
    if (joined !== null) frontmatter['allowed-tools'] = joined;
    add({
      severity: 'warning',
      code: 'allowed-tools-not-string',
      message:
        joined !== null
          ? "Field 'allowed-tools' should be a space-separated string; the list was joined with spaces"
          : "Field 'allowed-tools' must be either a string or a list of strings; it was ignored",
      hint: 'Write the tools as one string: `allowed-tools: Read Grep Bash(git:*)`.',
    });
  }

  for (const field of ['argument-hint', 'when_to_use'] as const) {
    const value = tree.get(field);
    if (typeof value === 'string') frontmatter[field] = unshared(value);
    else if (value !== undefined) {
      add({
        severity: 'warning',
        code: 'extension-not-string',
        message: `Field '${field}' must be a string; it was ignored`,
        hint: `Write \`${field}:\` followed by one line of text.`,
      });
    }
  }

  for (const field of ['disable-model-invocation', 'user-invocable'] as const) {
    // The frontmatter tree keeps scalars as text (as skills-ref's parser does), so `true` arrives as 'true'.
    const value = tree.get(field);
    const flag = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
    if (flag === 'true' || flag === 'false') frontmatter[field] = flag === 'true';
    else if (value !== undefined) {
      add({
        severity: 'warning',
        code: 'extension-not-boolean',
        message: `Field '${field}' must be true or false; it was ignored`,
        hint: `Write \`${field}: true\` or \`${field}: false\` (no quotes).`,
      });
    }
  }

  const metadata = tree.get('metadata');
  if (metadata instanceof Map) {
    // No prototype (a `__proto__` key is a key), like Object.create(null), whose objects V8 keeps as hash tables:
    // several times the size of an object with the same two keys, once per loaded skill.
    const copy: Record<string, string> = Object.setPrototypeOf({}, null);
    const dropped: string[] = [];
    for (const [key, value] of metadata) {
      if (typeof value === 'string') copy[key] = unshared(value);
      else dropped.push(key);
    }
    frontmatter.metadata = copy;
    if (dropped.length > 0) {
      add({
        severity: 'warning',
        code: 'metadata-value-not-string',
        message: `Metadata values must be strings; ignored: ${dropped.join(', ')}`,
        hint: 'Quote each metadata value or flatten nested values into string keys.',
      });
    }
  } else if (metadata !== undefined) {
    add({
      severity: 'warning',
      code: 'metadata-not-mapping',
      message: "Field 'metadata' must be a mapping of strings; it was ignored",
      hint: 'Write `metadata:` followed by indented `key: value` lines.',
    });
  }
  return frontmatter;
}
