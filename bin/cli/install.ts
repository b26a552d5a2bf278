/**
 * `install`, `uninstall`, `export`: the install root's commands, thin over server/install. `install` takes an
 * archive (`.zip`/`.skill`), a folder, a git URL, or an index URL (`index.json`, digest verified); every reason a
 * source is refused is printed, one per line, exit 1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { exportSkill } from '../../server/install/export';
import { type InstallResult, type InstallSource, installSkill, uninstallSkill } from '../../server/install/install';
import { InstallError } from '../../server/install/problems';
import { discover, loadAppConfig } from './app';
import { type Command, commandHelp, type Io, parseArgs } from './command';

function installRoot(option: string[] | undefined): string {
  const given = option?.at(-1);
  return given ? path.resolve(given) : loadAppConfig().install.root;
}

function sourceOf(arg: string, name: string | undefined): InstallSource {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(arg) || arg.startsWith('git@')) {
    return { kind: 'url', url: arg.startsWith('git@') ? `ssh://${arg.replace(':', '/')}` : arg, name };
  }
  return fs.statSync(arg, { throwIfNoEntry: false })?.isDirectory()
    ? { kind: 'folder', dir: arg }
    : { kind: 'archive', file: path.resolve(arg) };
}

function printRefusal(error: InstallError, io: Io): number {
  io.err(`Error: cannot install (${error.problems.length} ${error.problems.length === 1 ? 'problem' : 'problems'}):\n`);
  for (const p of error.problems) io.err(`  ${p.code}: ${p.path ? `${p.path}: ` : ''}${p.message}\n`);
  return 1;
}

function printDiff(result: InstallResult, io: Io): void {
  const diff = result.diff;
  if (!diff) return;
  io.out(diff.skillFile || 'SKILL.md unchanged\n');
  for (const [label, files] of [
    ['added', diff.added],
    ['removed', diff.removed],
    ['changed', diff.changed],
  ] as const) {
    for (const file of files) io.out(`${label.padEnd(8)} ${file}\n`);
  }
  io.out(`${diff.unchanged} unchanged\n`);
}

export const installCommand: Command = {
  name: 'install',
  args: '[OPTIONS] SOURCE',
  summary: 'Install a skill from an archive, a folder, a git URL or an index URL.',
  details: [
    'SOURCE is a .zip or .skill archive, a folder, a git URL (cloned with --depth 1,\nno submodules, no hooks), an archive URL, or an index URL ending in .json\n(entries: name, description, url, digest; the sha256 digest is verified).\nArchives with absolute paths, .., links, devices, names differing only by case,\ntoo many files or bytes, or zip-bomb ratios are refused, as are skills that do\nnot validate. The skill goes to the install root (install.root, or\n~/.skillchat/skills). URLs, their redirects and git hosts must be public\naddresses unless install.allowPrivateNetworks or install.allowHosts allow more.',
  ],
  options: [
    ['--root DIR', 'Install into DIR instead of the configured install root.'],
    ['--name NAME', 'The skill to take from an index that lists several.'],
    ['--update', 'Replace the installed copy (prints what changes).'],
    ['--preview', 'Only print what an update would change.'],
  ],
  async run(args, io) {
    const parsed = parseArgs(
      args,
      {
        flags: ['--update', '--preview'],
        options: ['--root', '--name'],
        positionals: { names: 'SOURCE', min: 1, max: 1 },
      },
      installCommand,
    );
    if (parsed.help) {
      io.out(commandHelp(installCommand));
      return 0;
    }
    const config = loadAppConfig();
    const root = installRoot(parsed.options.get('--root'));
    const mode = parsed.flags.has('--preview') ? 'preview' : parsed.flags.has('--update') ? 'update' : 'install';
    try {
      const source = sourceOf(parsed.positionals[0]!, parsed.options.get('--name')?.at(-1));
      const result = await installSkill(source, {
        root,
        install: config.install,
        limits: config.limits,
        mode,
        allowFileUrls: true,
      });
      printDiff(result, io);
      for (const d of result.diagnostics) io.out(`${d.severity.padEnd(7)}  ${d.code}: ${d.message}\n`);
      const where = path.join(root, result.name);
      io.out(
        result.applied
          ? `${result.replaced ? 'Updated' : 'Installed'} ${result.name} in ${where}\n`
          : 'Nothing changed (preview).\n',
      );
      return 0;
    } catch (error) {
      if (error instanceof InstallError) return printRefusal(error, io);
      throw error;
    }
  },
};

export const uninstallCommand: Command = {
  name: 'uninstall',
  args: '[OPTIONS] NAME',
  summary: 'Remove an installed skill from the install root.',
  details: [
    'Only skills in the install root can be removed; skills in other roots are\nthe files of whoever put them there.',
  ],
  options: [['--root DIR', 'Remove from DIR instead of the configured install root.']],
  async run(args, io) {
    const parsed = parseArgs(
      args,
      { options: ['--root'], positionals: { names: 'NAME', min: 1, max: 1 } },
      uninstallCommand,
    );
    if (parsed.help) {
      io.out(commandHelp(uninstallCommand));
      return 0;
    }
    const name = parsed.positionals[0]!;
    try {
      await uninstallSkill(installRoot(parsed.options.get('--root')), name);
    } catch (error) {
      if (!(error instanceof InstallError)) throw error;
      io.err(`Error: ${error.message}\n`);
      return 1;
    }
    io.out(`Uninstalled ${name}\n`);
    return 0;
  },
};

export const exportCommand: Command = {
  name: 'export',
  args: '[OPTIONS] NAME',
  summary: 'Write a loaded skill as a .skill archive (a zip).',
  details: ['Regular files only: links in the skill folder are not followed or stored.'],
  options: [
    ['--root DIR', 'Look for the skill in DIR instead of the configured roots (repeatable).'],
    ['-o, --output FILE', 'Where to write (default NAME.skill in the current folder).'],
  ],
  async run(args, io) {
    const parsed = parseArgs(
      args,
      { options: ['--root', '--output', '-o'], positionals: { names: 'NAME', min: 1, max: 1 } },
      exportCommand,
    );
    if (parsed.help) {
      io.out(commandHelp(exportCommand));
      return 0;
    }
    const name = parsed.positionals[0]!;
    const { result } = await discover(parsed.options.get('--root') ?? []);
    const skill = result.skills.find((s) => s.name === name);
    if (!skill) {
      io.err(`Error: no loaded skill named '${name}'\n`);
      return 1;
    }
    const output = path.resolve(
      parsed.options.get('--output')?.at(-1) ?? parsed.options.get('-o')?.at(-1) ?? `${name}.skill`,
    );
    fs.writeFileSync(output, await exportSkill(skill));
    io.out(`Wrote ${output}\n`);
    return 0;
  },
};
