/**
 * `runtime install` / `runtime show`: builds (idempotently) and describes the skills runtime the sandbox mounts
 * read-only: a Python venv and a Node package folder with the configured packages (server/sandbox/runtime.ts).
 */
import { describeRuntime, installRuntime } from '../../server/sandbox/runtime';
import { loadAppConfig } from './app';
import { type Command, UsageError } from './command';

export const runtimeCommand: Command = {
  name: 'runtime',
  args: 'install|show',
  summary: 'Install or show the skills runtime (Python venv + Node packages) scripts run with.',
  details: [
    'install: creates <runtime>/python (a venv from runtime.python, default /usr/bin/python3) and <runtime>/node, ' +
      'and installs runtime.pythonPackages with pip and runtime.nodePackages with npm, using their own configured ' +
      'index. Safe to run again. A package that cannot be installed is reported and the rest are still installed.',
    'show: the runtime folder, versions and installed packages.',
  ],
  options: [],
  async run(args, io) {
    const [action] = args;
    if (action !== 'install' && action !== 'show') {
      throw new UsageError('expected "install" or "show"', runtimeCommand);
    }
    const { runtime } = loadAppConfig().scripts;
    if (action === 'install') {
      io.out(`runtime folder: ${runtime.dir}\n`);
      const outcome = await installRuntime(runtime, (line) => io.out(`${line}\n`));
      const failed = [...outcome.python.failed, ...outcome.node.failed];
      io.out(
        `installed ${outcome.python.installed.length} Python and ${outcome.node.installed.length} Node packages` +
          (failed.length > 0 ? `; not installed: ${failed.map((f) => f.name).join(', ')}\n` : '\n'),
      );
      // A package the index lacks is reported, not fatal: skills that need it say so when they run.
      return 0;
    }
    const report = await describeRuntime(runtime.dir);
    io.out(
      `runtime folder: ${runtime.dir}${report.installed ? '' : ' (not installed: run `skills runtime install`)'}\n`,
    );
    io.out(`python: ${report.python.version ?? '-'}\n`);
    for (const p of report.python.packages) io.out(`  ${p.name} ${p.version}\n`);
    io.out(`node: ${report.node.version}\n`);
    for (const p of report.node.packages) io.out(`  ${p.name} ${p.version}\n`);
    return 0;
  },
};
