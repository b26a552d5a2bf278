/**
 * Which `soffice` command lines the chat's kept LibreOffice (office-host.ts) takes: `--convert-to` of files in the
 * workspace, with the options that change nothing about the result. Anything else (another option, a profile of its
 * own, filter options, a file or folder outside /workspace, a URL) is left to soffice itself, which then does exactly
 * what it always did.
 */
import path from 'node:path';
import { SANDBOX_PATHS } from './port';

export interface ConvertRequest {
  /** Absolute paths in the sandbox, under /workspace. */
  files: string[];
  /** The target extension (`pdf`). */
  to: string;
  /** soffice's `EXT:FILTER` form: the filter named; null: the one soffice picks for the extension. */
  filter: string | null;
  infilter: string | null;
  outdir: string;
}

export type ParsedConvert = { ok: true; request: ConvertRequest } | { ok: false; reason: string };

/** Options soffice takes that a conversion with no window, no restore and no splash ignores. */
const IGNORED = new Set(['headless', 'invisible', 'norestore', 'nologo', 'nodefault', 'nolockcheck', 'minimized']);
const VALUED = new Set(['convert-to', 'outdir', 'infilter']);
const MAX_FILES = 100;

const refuse = (reason: string): ParsedConvert => ({ ok: false, reason });

function underWorkspace(cwd: string, given: string): string | null {
  if (given.includes('\0') || /^[a-z][a-z0-9+.-]*:/i.test(given)) return null;
  const full = path.posix.resolve(cwd, given);
  const root = SANDBOX_PATHS.workspace;
  return full === root || full.startsWith(`${root}/`) ? full : null;
}

/** The conversion `args` (soffice's command line after its name) asks for, run from `cwd` in the sandbox. */
export function parseConvert(args: unknown, cwd: unknown): ParsedConvert {
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string') || typeof cwd !== 'string') {
    return refuse('not a command line');
  }
  if (!underWorkspace('/', cwd)) return refuse('the working folder is outside /workspace');
  const values = new Map<string, string>();
  const given: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith('-')) {
      given.push(arg);
      continue;
    }
    const option = /^--?([a-z-]+)(?:=(.*))?$/s.exec(arg);
    if (!option) return refuse(`soffice's own handling of ${arg}`);
    const [, name = '', inline] = option;
    if (IGNORED.has(name) && inline === undefined) continue;
    if (!VALUED.has(name) || values.has(name)) return refuse(`soffice's own handling of ${arg}`);
    const value = inline ?? args[++i];
    if (value === undefined) return refuse(`${arg} without a value`);
    values.set(name, value);
  }
  const target = values.get('convert-to');
  if (target === undefined) return refuse('not a conversion');
  const [to = '', filter, ...options] = target.split(':');
  if (!/^[a-z0-9]{1,10}$/.test(to) || options.length > 0 || filter === '') {
    return refuse(`soffice's own handling of --convert-to ${target}`);
  }
  const infilter = values.get('infilter') ?? null;
  // `NAME:OPTIONS` (a CSV's separators) is soffice's to parse.
  if (infilter !== null && (infilter === '' || infilter.includes(':'))) {
    return refuse(`soffice's own handling of --infilter ${infilter}`);
  }
  if (given.length === 0 || given.length > MAX_FILES) return refuse('no files, or too many');
  const files = given.map((file) => underWorkspace(cwd, file));
  const outdir = underWorkspace(cwd, values.get('outdir') ?? '.');
  if (!outdir || files.some((f) => f === null)) return refuse('a file or folder outside /workspace');
  return {
    ok: true,
    request: {
      files: files as string[],
      to,
      filter: filter ?? null,
      infilter,
      outdir,
    },
  };
}

/** What soffice prints for the files converted (its own words, so a script reading them reads the same). */
export function convertOutput(converted: ReadonlyArray<ConvertedFile>): string {
  return converted
    .map(
      (c) =>
        `convert ${c.source} as a ${c.app} document -> ${c.target} using filter : ${c.filter}\n` +
        (c.existed ? `Overwriting: ${c.target}\n` : ''),
    )
    .join('');
}

export interface ConvertedFile {
  source: string;
  target: string;
  filter: string;
  app: string;
  existed: boolean;
}
