/**
 * The skills runtime: a Python virtual environment and a Node package folder with what document skills expect,
 * built once by `bin/skills runtime install` and mounted read-only in the sandbox (first on PATH, NODE_PATH set).
 *
 *   <runtime>/python/   venv made from /usr/bin/python3 (the sandbox sees /usr; a pyenv under /root it would not)
 *   <runtime>/node/     package.json + node_modules
 *
 * Installing uses pip's and npm's own configuration (index, mirrors); a package that cannot be installed is
 * reported and the rest go on.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export interface RuntimeReport {
  installed: boolean;
  python: { version: string | null; packages: Array<{ name: string; version: string }> };
  node: { version: string; packages: Array<{ name: string; version: string }> };
}

export async function runtimeInstalled(dir: string): Promise<boolean> {
  return fs.promises
    .access(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ dir, 'python', 'bin', 'python3'))
    .then(() => true)
    .catch(() => false);
}

/** What is installed, for /admin and the CLI. */
export async function describeRuntime(dir: string): Promise<RuntimeReport> {
  const installed = await runtimeInstalled(dir);
  const report: RuntimeReport = {
    installed,
    python: { version: null, packages: [] },
    node: { version: process.version, packages: [] },
  };
  if (installed) {
    const py = path.join(/*turbopackIgnore: true*/ dir, 'python', 'bin', 'python3');
    report.python.version =
      (await exec(/*turbopackIgnore: true*/ py, ['--version']).catch(() => ({ stdout: '' }))).stdout.trim() || null;
    const listed = await exec(/*turbopackIgnore: true*/ py, [
      '-m',
      'pip',
      'list',
      '--format=json',
      '--disable-pip-version-check',
    ]).catch(() => null);
    if (listed) {
      const rows = JSON.parse(listed.stdout) as Array<{ name: string; version: string }>;
      report.python.packages = rows.filter((r) => !['pip', 'setuptools', 'wheel'].includes(r.name.toLowerCase()));
    }
  }
  const manifest = path.join(/*turbopackIgnore: true*/ dir, 'node', 'package.json');
  const pkg = await fs.promises
    .readFile(/*turbopackIgnore: true*/ manifest, 'utf8')
    .then(JSON.parse)
    .catch(() => null);
  for (const name of Object.keys(pkg?.dependencies ?? {})) {
    const own = await fs.promises
      .readFile(
        /*turbopackIgnore: true*/ path.join(
          /*turbopackIgnore: true*/ dir,
          'node',
          'node_modules',
          name,
          'package.json',
        ),
        'utf8',
      )
      .then(JSON.parse)
      .catch(() => null);
    if (own?.version) report.node.packages.push({ name, version: own.version });
  }
  return report;
}

export interface InstallOutcome {
  installed: string[];
  failed: Array<{ name: string; why: string }>;
}

function lastLine(error: unknown): string {
  const text = `${(error as { stderr?: string }).stderr ?? ''}`.trim() || (error as Error).message;
  return text.split('\n').filter(Boolean).pop()?.slice(0, 300) ?? 'failed';
}

/** Builds or tops up the runtime. Idempotent: an existing venv and node folder are reused. */
export async function installRuntime(
  options: { dir: string; python: string; pythonPackages: string[]; nodePackages: string[] },
  log: (line: string) => void,
): Promise<{ python: InstallOutcome; node: InstallOutcome }> {
  const pyDir = path.join(/*turbopackIgnore: true*/ options.dir, 'python');
  const nodeDir = path.join(/*turbopackIgnore: true*/ options.dir, 'node');
  await fs.promises.mkdir(/*turbopackIgnore: true*/ nodeDir, { recursive: true });
  if (!(await runtimeInstalled(options.dir))) {
    log(`creating the Python virtual environment from ${options.python}`);
    await exec(/*turbopackIgnore: true*/ options.python, ['-m', 'venv', pyDir]);
  }
  const pip = path.join(/*turbopackIgnore: true*/ pyDir, 'bin', 'python3');
  const python: InstallOutcome = { installed: [], failed: [] };
  // One at a time, so one missing package (python-pptx on a mirror without it) does not sink the others.
  for (const name of options.pythonPackages) {
    try {
      await exec(
        /*turbopackIgnore: true*/
        /*turbopackIgnore: true*/ pip,
        ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', name],
        {
          maxBuffer: 16 << 20,
        },
      );
      python.installed.push(name);
      log(`python: ${name} ok`);
    } catch (error) {
      python.failed.push({ name, why: lastLine(error) });
      log(`python: ${name} FAILED: ${lastLine(error)}`);
    }
  }
  const manifest = path.join(/*turbopackIgnore: true*/ nodeDir, 'package.json');
  if (!fs.existsSync(/*turbopackIgnore: true*/ manifest)) {
    await fs.promises.writeFile(
      /*turbopackIgnore: true*/ manifest,
      `${JSON.stringify({ name: 'skillchat-runtime', private: true }, null, 2)}\n`,
    );
  }
  const node: InstallOutcome = { installed: [], failed: [] };
  for (const name of options.nodePackages) {
    try {
      await exec(/*turbopackIgnore: true*/ 'npm', ['install', '--no-audit', '--no-fund', '--prefix', nodeDir, name], {
        maxBuffer: 16 << 20,
      });
      node.installed.push(name);
      log(`node: ${name} ok`);
    } catch (error) {
      node.failed.push({ name, why: lastLine(error) });
      log(`node: ${name} FAILED: ${lastLine(error)}`);
    }
  }
  // The sandbox uid must be able to read (not write) everything.
  await exec(/*turbopackIgnore: true*/ 'chmod', ['-R', 'a+rX', options.dir]).catch(() => {});
  return { python, node };
}
