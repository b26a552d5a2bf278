/**
 * `runtime install` / `runtime [show]`: builds (idempotently) and describes the skills runtime the sandbox mounts
 * read-only (server/toolchain/skills-runtime.ts), the system programs scripts call (system-packages.ts) and the sandbox's
 * seccomp filter (seccomp.ts); install also prepares LibreOffice's profile (server/sandbox/office-profile.ts).
 */
import path from 'node:path';
import { prepareOffice } from '../../server/sandbox/run';
import { SECCOMP_DENIED, seccompGenerator } from '../../server/toolchain/seccomp';
import { describeRuntime, installRuntime, type RuntimeReport } from '../../server/toolchain/skills-runtime';
import { loadAppConfig, PROJECT_DIR } from './app';
import { type Command, type Io, UsageError } from './command';

export const runtimeCommand: Command = {
  name: 'runtime',
  args: '[install [--no-system] | show]',
  summary: 'Install or show the skills runtime (system programs, Python venv, Node packages, seccomp filter).',
  details: [
    'install: as root on Debian, installs the missing system packages (LibreOffice 25.2 and python3-uno from bookworm-backports, ' +
      'adding that suite to apt on the archive apt already uses; pandoc, qpdf, poppler-utils, fonts, ' +
      'python3-seccomp); otherwise prints the commands. Then creates <runtime>/python (a venv from runtime.python, ' +
      'default /usr/bin/python3) and <runtime>/node, installs runtime.pythonPackages with pip and ' +
      'runtime.nodePackages with npm (their own configured index), and builds <runtime>/seccomp.bpf. Safe to run ' +
      'again: what is present is skipped. A package the index lacks is reported and the rest are still installed.',
    'show (or no argument): the runtime folder, versions, packages, system programs and the seccomp filter.',
  ],
  options: [['--no-system', 'install: leave system packages alone (you manage them yourself).']],
  async run(args, io) {
    const [action = 'show', ...rest] = args;
    if (action !== 'install' && action !== 'show') {
      throw new UsageError('expected "install" or "show"', runtimeCommand);
    }
    const unknown = rest.filter((a) => action !== 'install' || a !== '--no-system');
    if (unknown.length > 0) throw new UsageError(`unexpected argument: ${unknown[0]}`, runtimeCommand);
    const { runtime } = loadAppConfig().execution;
    const generator = seccompGenerator(PROJECT_DIR);
    if (action === 'install') {
      io.out(`runtime folder: ${runtime.dir}\n`);
      const outcome = await installRuntime(
        { ...runtime, system: !rest.includes('--no-system'), seccompGenerator: generator, appDir: PROJECT_DIR },
        (line) => io.out(`${line}\n`),
      );
      const failed = [...outcome.python.failed, ...outcome.node.failed];
      io.out(
        `${outcome.python.installed.length} Python and ${outcome.node.installed.length} Node packages in place` +
          (failed.length > 0 ? `; not installed: ${failed.map((f) => f.name).join(', ')}\n` : '\n'),
      );
      if (outcome.system && outcome.system.missing.length > 0) {
        io.out(`system packages missing: ${outcome.system.missing.map((m) => m.id).join(', ')}\n`);
      }
      // LibreOffice's profile now, not at the first run after the server starts (sandbox/office-profile.ts).
      const office = await prepareOffice(loadAppConfig().execution);
      io.out(
        office
          ? `LibreOffice profile prepared: ${path.relative(runtime.dir, office)}\n`
          : 'LibreOffice profile: not prepared (no LibreOffice, or no sandbox can run here)\n',
      );
      // Missing packages are reported, not fatal: skills that need them say so when they run.
      return 0;
    }
    printReport(await describeRuntime(runtime.dir, generator), runtime.dir, io);
    return 0;
  },
};

function printReport(report: RuntimeReport, dir: string, io: Io): void {
  io.out(`runtime folder: ${dir}${report.installed ? '' : ' (not installed: run `skills runtime install`)'}\n`);
  io.out(`python: ${report.python.version ?? '-'}\n`);
  for (const p of report.python.packages) io.out(`  ${p.name} ${p.version}\n`);
  for (const f of report.python.failed) io.out(`  ${f.name} NOT INSTALLED: ${f.why}\n`);
  io.out(`node: ${report.node.version}\n`);
  for (const p of report.node.packages) io.out(`  ${p.name} ${p.version}\n`);
  for (const f of report.node.failed) io.out(`  ${f.name} NOT INSTALLED: ${f.why}\n`);
  io.out('system:\n');
  for (const s of report.system) {
    const state = !s.found
      ? `MISSING (${s.purpose}): ${s.install}`
      : s.problem
        ? `TOO OLD: ${s.problem}; ${s.install}`
        : (s.version ?? 'found');
    io.out(`  ${s.label} ${state}\n`);
  }
  io.out(
    report.seccomp.path !== null
      ? `seccomp filter: ${path.relative(dir, report.seccomp.path)} (denies ${SECCOMP_DENIED.length} system calls)\n`
      : `seccomp filter: none: ${report.seccomp.reason}\n`,
  );
}
