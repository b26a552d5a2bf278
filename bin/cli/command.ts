/**
 * What every command shares: the command shape, argument parsing and help text. The first three commands copy
 * skills-ref, whose CLI is click, so usage errors are shaped like click's (same wording, exit code 2): scripts that
 * grep skills-ref's output keep working when they call this CLI instead.
 */
import fs from 'node:fs';
import path from 'node:path';

/**
 * The skillchat folder this CLI belongs to (bin/cli/ and the bundle's bin/dist/ are two levels down), whatever the
 * working directory.
 */
export const PROJECT_DIR = path.resolve(import.meta.dirname, '..', '..');

export const PROGRAM = 'skills';

/** Where output goes; commands never touch `process` directly, so each one is a plain function. */
export interface Io {
  out(text: string): void;
  /**
   * Bytes to stdout as they are (a kept answer: no decoding and encoding again); else `out` of their text. True when
   * they are written out and the caller may reuse them; false when the output still holds them (an asynchronous
   * stdout, a pipe on macOS: then they must stay as they are).
   */
  outBytes?(bytes: Uint8Array): boolean;
  err(text: string): void;
}

export interface Command {
  name: string;
  /** What follows `skills <name>` in the usage line, e.g. `[OPTIONS] SKILL_PATH`. */
  args: string;
  /** One line for the command list. */
  summary: string;
  /** Paragraphs after the summary in `--help`. */
  details: string[];
  /** `[option, explanation]` rows for `--help` (`--help` itself is added). */
  options: Array<[string, string]>;
  /** Exit code. Throws `UsageError` for a bad invocation. */
  run(args: string[], io: Io): Promise<number>;
}

/**
 * In the bundle each command module is a file of its own with its own copy of this module (bin/build-cli.mjs), so a
 * usage error is recognised by a brand every copy shares (`isUsageError`), not by `instanceof`.
 */
const USAGE_ERROR = Symbol.for('skillchat.skills.UsageError');

/** A bad invocation (click's `UsageError`): printed with the command's usage line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
  readonly [USAGE_ERROR] = true;
  constructor(
    message: string,
    readonly command: Pick<Command, 'name' | 'args'>,
  ) {
    super(message);
  }
}

export function isUsageError(error: unknown): error is UsageError {
  return typeof error === 'object' && error !== null && USAGE_ERROR in error;
}

export function printUsageError(error: UsageError, io: Io): number {
  const { name, args } = error.command;
  io.err(`Usage: ${PROGRAM} ${name} ${args}\nTry '${PROGRAM} ${name} --help' for help.\n\nError: ${error.message}\n`);
  return 2;
}

/** Two-column rows with the first column padded to a common width, as click lays out options and commands. */
export function twoColumns(rows: ReadonlyArray<readonly [string, string]>): string {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`.trimEnd()).join('\n');
}

export function commandHelp(command: Command): string {
  const paragraphs = [command.summary, ...command.details].map((p) =>
    p
      .split('\n')
      .map((line) => (line ? `  ${line}` : line))
      .join('\n'),
  );
  const options = twoColumns([...command.options, ['--help', 'Show this message and exit.']]);
  return `Usage: ${PROGRAM} ${command.name} ${command.args}\n\n${paragraphs.join('\n\n')}\n\nOptions:\n${options}\n`;
}

export interface ParsedArgs {
  positionals: string[];
  flags: Set<string>;
  /** Options with a value, every occurrence in the order given (`--root` repeats). */
  options: Map<string, string[]>;
  help: boolean;
}

export interface ArgSpec {
  /** Options without a value, e.g. `--json`. */
  flags?: readonly string[];
  /** Options with a value, given as `--root DIR` or `--root=DIR`. */
  options?: readonly string[];
  /** How many positionals: `min` required, `max` allowed (`Infinity` for `NAME...`). */
  positionals: { names: string; min: number; max: number };
}

/**
 * Click's rules for what the commands here need: `--` ends options, a lone `-` is a positional, and `--help`
 * wins over missing arguments (so `skills validate --help` works without a path).
 */
export function parseArgs(args: readonly string[], spec: ArgSpec, command: Command): ParsedArgs {
  const flags = new Set<string>();
  const options = new Map<string, string[]>();
  const positionals: string[] = [];
  let help = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    if (name === '--help' && eq === -1) {
      help = true;
    } else if (spec.flags?.includes(name) && eq === -1) {
      flags.add(name);
    } else if (spec.options?.includes(name)) {
      const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
      if (value === undefined) throw new UsageError(`Option '${name}' requires an argument.`, command);
      options.set(name, [...(options.get(name) ?? []), value]);
    } else {
      throw new UsageError(`No such option: ${name}`, command);
    }
  }
  if (!help) {
    const { names, min, max } = spec.positionals;
    if (positionals.length < min) throw new UsageError(`Missing argument '${names}'.`, command);
    if (positionals.length > max) {
      const extra = positionals.slice(max);
      const noun = extra.length === 1 ? 'argument' : 'arguments';
      throw new UsageError(`Got unexpected extra ${noun} (${extra.join(' ')})`, command);
    }
  }
  return { positionals, flags, options, help };
}

/** Python's `repr()` of a string, as click quotes a path in "Path 'x' does not exist." */
export function pyRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\' || ch === quote) out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + quote;
}

/** click's `Path(exists=True)`: `os.stat` follows links, so a dangling link does not exist either. */
export function requireExistingPath(p: string, metavar: string, command: Command): void {
  if (!fs.existsSync(p)) {
    throw new UsageError(`Invalid value for '${metavar}': Path ${pyRepr(p)} does not exist.`, command);
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
