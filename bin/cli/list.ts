/**
 * `list`: what the app would load and why not the rest: roots, skills with their status and access (the same
 * records the app resolves: server/access/), folders that were not loaded, collisions and the catalog's token cost.
 * The answer to "why doesn't my skill show up?". The access shown includes the modes set on /admin, read from the
 * app's SQLite database when it exists (bin/cli/mode-overrides.ts).
 */
import path from 'node:path';
import type { SkillAccess } from '../../server/access/access';
import { createAccessResolver } from '../../server/access/resolver';
import type { AppConfig, SkillMode } from '../../server/config';
import { declarationProblems } from '../../server/egress/declarations';
// The o200k table catalog.ts imports is loaded on first use in the bundle (bin/build-cli.mjs), not by this import.
import { countTokens, renderCatalog } from '../../server/skills/catalog/catalog';
import { isProblem } from '../../server/skills/load/diagnostics';
import type { Diagnostic, DiscoveryResult, Skill } from '../../server/skills/types';
import { type Discovered, walk } from './app';
import type { KeptAnswer } from './cache/answer-cache';
import { type Command, commandHelp, type Io, parseArgs } from './command';
import { readModeOverrides } from './mode-overrides';

export type SkillStatus = 'ok' | 'warnings';

export type ListedAccess = Pick<
  SkillAccess,
  'permission' | 'effectiveMode' | 'catalog' | 'modelMayActivate' | 'personMayInvoke' | 'consent' | 'reason'
>;

export interface ListedSkill extends Skill {
  status: SkillStatus;
  access: ListedAccess;
}

/** `list --json`: the DiscoveryResult, each skill with its status, plus the catalog's size in o200k tokens. */
export interface ListJson extends Omit<DiscoveryResult, 'skills'> {
  skills: ListedSkill[];
  catalogTokens: number;
  /** Modes set on /admin (in the app's database) that the access above includes, by skill name. */
  modeOverrides: Record<string, SkillMode>;
}

/** `info` diagnostics (a recovered unquoted colon, say) are worth showing but do not make a skill need attention. */
export function skillStatus(skill: Skill): SkillStatus {
  return skill.diagnostics.some(isProblem) || declarationProblems(skill).length > 0 ? 'warnings' : 'ok';
}

/**
 * The catalog is left out of the prompt when there are no skills, so it costs nothing then. Counted in this thread:
 * a worker counting while the scan runs is faster only with a core to spare, and costs more CPU
 * in all (its own isolate, heap and compiled tokenizer), which is what a run waits for on a busy machine.
 */
export async function catalogTokens(skills: readonly Skill[], tokens?: Discovered['tokens']): Promise<number> {
  if (skills.length === 0) return 0;
  const count = async () => countTokens(renderCatalog(skills));
  // The catalog is a function of the names and descriptions alone: the same ones, the same count.
  return tokens ? tokens(JSON.stringify(skills.map((s) => [s.name, s.description])), count) : count();
}

export async function toListJson(
  result: DiscoveryResult,
  config: Pick<AppConfig, 'appDir' | 'permissions' | 'skills'>,
  tokens?: Discovered['tokens'],
  modeOverrides: ReadonlyMap<string, SkillMode> = new Map(),
): Promise<ListJson> {
  return listJson(result, config, await catalogTokens(result.skills, tokens), modeOverrides);
}

/** `toListJson` with the catalog's tokens counted already. */
function listJson(
  result: DiscoveryResult,
  config: Pick<AppConfig, 'appDir' | 'permissions' | 'skills'>,
  tokens: number,
  modeOverrides: ReadonlyMap<string, SkillMode>,
): ListJson {
  const resolver = createAccessResolver({ ...config, roots: result.roots });
  for (const [name, mode] of modeOverrides) resolver.setModeOverride(name, mode);
  const records = resolver.resolveAll(result.skills);
  const accessOf = (name: string): ListedAccess => {
    const { permission, effectiveMode, catalog, modelMayActivate, personMayInvoke, consent, reason } =
      records.get(name)!;
    return { permission, effectiveMode, catalog, modelMayActivate, personMayInvoke, consent, reason };
  };
  return {
    ...result,
    skills: result.skills.map((skill) => ({ ...skill, status: skillStatus(skill), access: accessOf(skill.name) })),
    catalogTokens: tokens,
    modeOverrides: Object.fromEntries(modeOverrides),
  };
}

/** Where a folder is as people see it in their tree: under the root as configured, not its realpath. */
function location(root: string, relDir: string): string {
  return relDir ? path.join(root, ...relDir.split('/')) : root;
}

/** Diagnostics compared by content: the same problem can reach the result and a skill as separate objects. */
function key(d: Diagnostic): string {
  return JSON.stringify([d.severity, d.code, d.message, d.skillDir ?? '', d.root ?? '']);
}

function table(rows: string[][], indent = '  '): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => indent + r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  '));
}

function diagnosticLine(d: Diagnostic, indent: string): string {
  return `${indent}${d.severity.padEnd(7)}  ${d.code}: ${d.message}`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function formatList(data: ListJson): string {
  const lines: string[] = [];

  lines.push('Roots (highest precedence first)');
  lines.push(
    ...table([
      ['#', 'SCOPE', 'KIND', 'SKILLS', 'PATH'],
      ...data.roots.map((r, i) => [
        String(i + 1),
        r.scope,
        r.kind,
        r.exists ? String(r.skillCount) : 'missing',
        r.path,
      ]),
    ]),
  );

  lines.push('', `Skills (${data.skills.length})`);
  if (data.skills.length === 0) lines.push('  (none)');
  else {
    const rows = table([
      ['NAME', 'STATUS', 'SCOPE', 'LOCATION'],
      ...data.skills.map((s) => [s.name, s.status, s.scope, location(s.root, s.relDir)]),
    ]);
    lines.push(rows[0]!);
    data.skills.forEach((skill, i) => {
      lines.push(rows[i + 1]!);
      for (const d of skill.diagnostics) lines.push(diagnosticLine(d, '      '));
      // metadata.network / metadata.secrets the egress grant could not read (the skill loads regardless).
      for (const d of declarationProblems(skill)) lines.push(diagnosticLine(d, '      '));
    });
  }

  if (data.skills.length > 0) {
    const overridden = Object.keys(data.modeOverrides).length;
    lines.push(
      '',
      overridden > 0
        ? `Access (config rules and modes, and ${plural(overridden, 'mode')} set on /admin)`
        : 'Access (config rules and modes)',
    );
    lines.push(
      ...table([
        ['NAME', 'PERMISSION', 'MODE', 'CATALOG', 'MODEL', '/NAME', 'CONSENT'],
        ...data.skills.map(({ name, access: a }) => [
          name,
          a.permission,
          a.effectiveMode,
          a.catalog,
          a.modelMayActivate ? 'yes' : 'no',
          a.personMayInvoke ? 'yes' : 'no',
          a.consent,
        ]),
      ]),
    );
  }

  const shown = new Set(data.skills.flatMap((s) => s.diagnostics.map(key)));
  // A folder that was not loaded has at least one `error`; everything said about it is grouped under it.
  const notLoaded = new Map<string, Diagnostic[]>();
  for (const d of data.diagnostics) {
    if (d.severity === 'error' && d.skillDir && !shown.has(key(d))) notLoaded.set(d.skillDir, []);
  }
  for (const d of data.diagnostics) {
    if (d.skillDir && notLoaded.has(d.skillDir) && !shown.has(key(d))) {
      notLoaded.get(d.skillDir)!.push(d);
      shown.add(key(d));
    }
  }
  if (notLoaded.size > 0) {
    lines.push('', `Not loaded (${notLoaded.size})`);
    for (const [dir, diagnostics] of notLoaded) {
      lines.push(`  ${dir}`, ...diagnostics.map((d) => diagnosticLine(d, '      ')));
    }
  }

  if (data.collisions.length > 0) {
    lines.push('', `Collisions (${data.collisions.length})`);
    for (const c of data.collisions) {
      lines.push(`  ${c.name}`, `      wins:     ${c.winner}`, ...c.losers.map((l) => `      shadowed: ${l}`));
    }
  }

  // Root problems, collision warnings and the shadowed copies' own problems.
  const other = data.diagnostics.filter((d) => !shown.has(key(d)));
  if (other.length > 0) {
    lines.push('', `Other diagnostics (${other.length})`);
    lines.push(...other.map((d) => diagnosticLine(d, '  ')));
  }

  lines.push(
    '',
    `${plural(data.skills.length, 'skill')} loaded, ${plural(notLoaded.size, 'folder')} not loaded, ` +
      `${plural(data.collisions.length, 'collision')}; catalog ${plural(data.catalogTokens, 'token')} (o200k).`,
  );
  return `${lines.join('\n')}\n`;
}

/**
 * `scannedAt` and `durationMs` as JSON.stringify(data, null, 2) prints them: at the top level (two spaces; nested
 * keys are indented further and strings hold no raw newline), so the text is found once.
 */
function timesText(scannedAt: number, durationMs: number): string {
  return `\n  "scannedAt": ${JSON.stringify(scannedAt)},\n  "durationMs": ${JSON.stringify(durationMs)},\n`;
}

/** Bytes to stdout as they are where the output takes bytes; true when they may be reused (see `Io.outBytes`). */
function writeBytes(io: Io, bytes: Uint8Array): boolean {
  if (io.outBytes) return io.outBytes(bytes);
  io.out(Buffer.from(bytes).toString());
  return true;
}

/** Prints a kept answer (for `--json`: with this run's scan time); false if it is not one this code wrote. */
function printKept(kept: KeptAnswer, json: boolean, started: number, io: Io): boolean {
  const write = (bytes: Uint8Array) => writeBytes(io, bytes);
  if (!json) {
    kept.copy(0, kept.size, write);
    return true;
  }
  // `${headLength}\n${head}${tail}`: the head is everything before the scan's time.
  const first = kept.read(0, 24);
  const eol = first.indexOf(10);
  const headLength = Number(first.subarray(0, eol).toString());
  if (eol === -1 || !Number.isSafeInteger(headLength) || eol + 1 + headLength > kept.size) return false;
  kept.copy(eol + 1, eol + 1 + headLength, write);
  write(Buffer.from(timesText(Date.now(), performance.now() - started)));
  kept.copy(eol + 1 + headLength, kept.size, write);
  return true;
}

export const listCommand: Command = {
  name: 'list',
  args: '[OPTIONS]',
  summary: 'Show the skills the app would load, and why others are not loaded.',
  details: [
    'Scans the configured skill roots (skillchat.config.json, SKILLCHAT_SKILL_ROOTS,\nor the defaults) the way the app does, and prints the roots, the loaded skills\nwith their status and diagnostics, the folders that were not loaded, name\ncollisions (winner and shadowed copies) and the catalog size in tokens.',
  ],
  options: [
    ['--root DIR', 'Scan DIR instead of the configured roots (repeatable; first wins).'],
    ['--json', 'Print the discovery result as JSON, with catalogTokens.'],
  ],
  async run(args, io) {
    const parsed = parseArgs(
      args,
      { flags: ['--json'], options: ['--root'], positionals: { names: '', min: 0, max: 0 } },
      listCommand,
    );
    if (parsed.help) {
      io.out(commandHelp(listCommand));
      return 0;
    }
    const started = performance.now();
    const json = parsed.flags.has('--json');
    const walked = await walk(parsed.options.get('--root') ?? [], process.env);
    const overrides = await readModeOverrides(walked.config.databasePath);
    if (overrides.problem) io.err(`Warning: modes set on /admin not read: ${overrides.problem}\n`);
    // The answer depends on the walk (the kept answer's key), the format, the config's access rules and /admin's modes.
    const answer = walked.answer(json ? 'list --json' : 'list', JSON.stringify([walked.config, [...overrides.modes]]));
    if (answer && answer.size >= 0 && printKept(answer, json, started, io)) return 0;

    const discovered = await walked.finish();
    const { config, result, tokens } = discovered;
    // The caches are written once the answer is printed.
    if (!json) {
      const data = await toListJson(result, config, tokens, overrides.modes);
      const text = formatList(data);
      io.out(text);
      discovered.save();
      answer?.save(text);
      return 0;
    }
    const data = await toListJson(result, config, tokens, overrides.modes);
    const bytes = Buffer.from(`${JSON.stringify(data, null, 2)}\n`);
    writeBytes(io, bytes);
    discovered.save();
    // Kept without the scan's time, which each run prints afresh (`printKept`).
    const times = Buffer.from(timesText(data.scannedAt, data.durationMs));
    const at = bytes.indexOf(times);
    if (at !== -1 && bytes.indexOf(times, at + 1) === -1) {
      answer?.save([Buffer.from(`${at}\n`), bytes.subarray(0, at), bytes.subarray(at + times.length)]);
    }
    return 0;
  },
};
