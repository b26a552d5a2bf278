/**
 * The skills runtime: what scripts run with beyond the host's /usr. `bin/skills runtime install` builds it
 * (idempotently; a run with everything present starts two or three processes) and the sandbox mounts the folder
 * read-only (first on PATH, NODE_PATH set):
 *
 *   <runtime>/python/        venv made from /usr/bin/python3 (the sandbox sees /usr; a pyenv under /root it would
 *                            not); its bin/ has both `python` and `python3`
 *   <runtime>/node/          package.json + node_modules
 *   <runtime>/seccomp.bpf    the sandbox's seccomp filter (seccomp.ts)
 *   <runtime>/egress/        the forwarder and Node's proxy preload of runs with network access (egress-assets.ts)
 *   <runtime>/install.json   the packages the last install could not get, and why (for /admin)
 *
 * and, outside it, the system packages of system-packages.ts (LibreOffice, pandoc, qpdf, poppler, fonts).
 * Installing uses pip's and npm's own configuration (index, mirrors); a package that cannot be installed is
 * reported and the rest go on.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { installEgressAssets } from './egress-assets';
import { checkSeccompFilter, ensureSeccompFilter, type SeccompFilter, seccompGenerator } from './seccomp';
import {
  describeSystemTools,
  installSystemPackages,
  type SystemInstallOutcome,
  type SystemToolStatus,
} from './system-packages';

const exec = promisify(execFile);

/**
 * Where a sandbox shows the runtime: the venv's console scripts are pointed here (`retargetScripts`), so a backend
 * that runs them mounts the folder at this path.
 */
export const RUNTIME_MOUNT = '/opt/skillchat-runtime';

/**
 * Node packages the runtime itself needs, installed whatever `runtime.nodePackages` says: undici 7 for the proxy
 * preload of runs with egress (Node 20's own fetch ignores proxy variables; undici 8 needs Node 22).
 */
export const RUNTIME_NODE_PACKAGES: readonly string[] = ['undici@^7'];

export interface PackageFailure {
  name: string;
  why: string;
}

export interface RuntimeReport {
  installed: boolean;
  python: {
    version: string | null;
    packages: Array<{ name: string; version: string }>;
    /** What the last `runtime install` could not install. */
    failed: PackageFailure[];
  };
  node: { version: string; packages: Array<{ name: string; version: string }>; failed: PackageFailure[] };
  system: SystemToolStatus[];
  seccomp: SeccompFilter;
}

function venvPython(dir: string): string {
  return path.join(/*turbopackIgnore: true*/ dir, 'python', 'bin', 'python3');
}

function installRecord(dir: string): string {
  return path.join(/*turbopackIgnore: true*/ dir, 'install.json');
}

export async function runtimeInstalled(dir: string): Promise<boolean> {
  return fs.promises
    .access(/*turbopackIgnore: true*/ venvPython(dir))
    .then(() => true)
    .catch(() => false);
}

/** PEP 503's normal form, which pip's metadata and a configured name are compared in. */
function normalName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/** Distributions in the venv, normal name -> { name, version } (one short Python start, not `pip list`). */
async function pythonDistributions(dir: string): Promise<Map<string, { name: string; version: string }>> {
  const listed = await exec(/*turbopackIgnore: true*/ venvPython(dir), [
    '-c',
    'import importlib.metadata as m, json; print(json.dumps([[d.metadata["Name"], d.version] for d in m.distributions()]))',
  ]).catch(() => null);
  const rows = listed ? (JSON.parse(listed.stdout) as Array<[string, string]>) : [];
  return new Map(rows.map(([name, version]) => [normalName(name), { name, version }]));
}

async function nodePackageVersion(dir: string, name: string): Promise<string | null> {
  const manifest = path.join(/*turbopackIgnore: true*/ dir, 'node', 'node_modules', name, 'package.json');
  const own = await fs.promises
    .readFile(/*turbopackIgnore: true*/ manifest, 'utf8')
    .then(JSON.parse)
    .catch(() => null);
  return typeof own?.version === 'string' ? own.version : null;
}

async function readInstallRecord(dir: string): Promise<{ python: PackageFailure[]; node: PackageFailure[] }> {
  const record = await fs.promises
    .readFile(/*turbopackIgnore: true*/ installRecord(dir), 'utf8')
    .then(JSON.parse)
    .catch(() => null);
  return { python: record?.python?.failed ?? [], node: record?.node?.failed ?? [] };
}

/** What is installed, for /admin and the CLI. Reads only: it builds nothing. */
export async function describeRuntime(dir: string, generator: string = seccompGenerator()): Promise<RuntimeReport> {
  const installed = await runtimeInstalled(dir);
  const [record, system, seccomp] = await Promise.all([
    readInstallRecord(dir),
    describeSystemTools(),
    checkSeccompFilter(dir, generator),
  ]);
  const report: RuntimeReport = {
    installed,
    python: { version: null, packages: [], failed: record.python },
    node: { version: process.version, packages: [], failed: record.node },
    system,
    seccomp,
  };
  if (installed) {
    const py = venvPython(dir);
    report.python.version =
      (await exec(/*turbopackIgnore: true*/ py, ['--version']).catch(() => ({ stdout: '' }))).stdout.trim() || null;
    report.python.packages = [...(await pythonDistributions(dir)).values()]
      .filter((p) => !['pip', 'setuptools', 'wheel'].includes(p.name.toLowerCase()))
      .sort((a, b) => a.name.localeCompare(b.name));
  }
  const manifest = path.join(/*turbopackIgnore: true*/ dir, 'node', 'package.json');
  const pkg = await fs.promises
    .readFile(/*turbopackIgnore: true*/ manifest, 'utf8')
    .then(JSON.parse)
    .catch(() => null);
  for (const name of Object.keys(pkg?.dependencies ?? {})) {
    const version = await nodePackageVersion(dir, name);
    if (version) report.node.packages.push({ name, version });
  }
  return report;
}

export interface InstallOutcome {
  /** Installed now or already there. */
  installed: string[];
  failed: PackageFailure[];
}

function stderrOf(error: unknown): string {
  return `${(error as { stderr?: string }).stderr ?? ''}`.trim() || (error as Error).message;
}

function lastLine(text: string): string {
  return text.split('\n').filter(Boolean).pop()?.slice(0, 300) ?? 'failed';
}

/** Why pip or npm could not install `name`, in words an operator acts on. */
export function installFailure(tool: 'pip' | 'npm', name: string, stderr: string): string {
  if (tool === 'pip' && /No matching distribution found|Could not find a version that satisfies/.test(stderr)) {
    return `the package index lacks ${name} (pip's configured index and find-links): provide it there and run again`;
  }
  if (tool === 'npm' && /\b(E404|404 Not Found)\b/.test(stderr)) {
    return `the npm registry lacks ${name}: provide it there and run again`;
  }
  return lastLine(stderr);
}

/** Why `python -m venv` failed, in words an operator acts on (Debian's own message names the package). */
export function venvFailure(stderr: string): string {
  if (/ensurepip is not\s+available|No module named '?ensurepip/.test(stderr)) {
    return `this python3 has no venv with pip: install python3-venv (\`apt-get install -y python3-venv\`, or \`bin/skills runtime install\` as root) and run again`;
  }
  return lastLine(stderr);
}

/** A configured entry that is a bare name (no version, extra or URL) may be skipped when installed. */
function bareName(spec: string): string | null {
  return /^(@[a-z0-9][\w.-]*\/)?[A-Za-z0-9][\w.-]*$/.test(spec) ? spec : null;
}

/** `name@^7` or `name@7`: a package pinned to one major version, which an installed copy of that major satisfies. */
export function pinnedMajor(spec: string): { name: string; major: number } | null {
  const match = /^((?:@[a-z0-9][\w.-]*\/)?[A-Za-z0-9][\w.-]*)@\^?(\d+)(?:\.x)?$/.exec(spec);
  return match ? { name: match[1] as string, major: Number(match[2]) } : null;
}

/** The entry of `wanted` pip says its index lacks (`No matching distribution found for NAME`), if one. */
export function lackedPackage(stderr: string, wanted: readonly string[]): string | null {
  const named = /No matching distribution found for ([A-Za-z0-9][\w.-]*)/.exec(stderr)?.[1];
  if (!named) return null;
  return wanted.find((spec) => normalName(spec.split(/[^\w.-]/)[0] as string) === normalName(named)) ?? null;
}

/**
 * Installs `wanted` with one call of `install`; when that fails (a package the index lacks sinks the whole call),
 * again without the package pip names as missing, or else one package at a time, so the others still go in.
 */
async function installAll(
  tool: 'pip' | 'npm',
  wanted: string[],
  install: (names: string[]) => Promise<unknown>,
  log: (line: string) => void,
): Promise<InstallOutcome> {
  const outcome: InstallOutcome = { installed: [], failed: [] };
  if (wanted.length === 0) return outcome;
  let lacked: string | null = null;
  try {
    await install(wanted);
    outcome.installed.push(...wanted);
    for (const name of wanted) log(`${tool}: ${name} installed`);
    return outcome;
  } catch (error) {
    const stderr = stderrOf(error);
    if (wanted.length === 1) {
      const why = installFailure(tool, wanted[0] as string, stderr);
      outcome.failed.push({ name: wanted[0] as string, why });
      log(`${tool}: ${wanted[0]} FAILED: ${why}`);
      return outcome;
    }
    lacked = tool === 'pip' ? lackedPackage(stderr, wanted) : null;
    if (lacked !== null) {
      const why = installFailure(tool, lacked, stderr);
      outcome.failed.push({ name: lacked, why });
      log(`${tool}: ${lacked} FAILED: ${why}`);
    }
  }
  if (lacked !== null) {
    const rest = await installAll(
      tool,
      wanted.filter((spec) => spec !== lacked),
      install,
      log,
    );
    return { installed: rest.installed, failed: [...outcome.failed, ...rest.failed] };
  }
  for (const name of wanted) {
    const one = await installAll(tool, [name], install, log);
    outcome.installed.push(...one.installed);
    outcome.failed.push(...one.failed);
  }
  return outcome;
}

/** Makes the runtime's venv from `python`; null when made, else why not (never a crash of the whole install). */
export async function createVenv(python: string, dir: string): Promise<string | null> {
  // --copies: no link from the app folder to /usr/bin (a build tool that walks the app folder trips on one).
  return exec(/*turbopackIgnore: true*/ python, [
    '-m',
    'venv',
    '--clear',
    '--copies',
    path.join(/*turbopackIgnore: true*/ dir, 'python'),
  ]).then(
    () => null,
    (error: unknown) => venvFailure(stderrOf(error)),
  );
}

export async function installPython(
  options: { dir: string; python: string; pythonPackages: string[] },
  log: (line: string) => void,
): Promise<InstallOutcome> {
  // A venv without pip is one an earlier install left half-made (python3-venv was missing): made again.
  const pip = path.join(/*turbopackIgnore: true*/ options.dir, 'python', 'bin', 'pip');
  if (!(await runtimeInstalled(options.dir)) || !fs.existsSync(/*turbopackIgnore: true*/ pip)) {
    log(`creating the Python virtual environment from ${options.python}`);
    const problem = await createVenv(options.python, options.dir);
    if (problem !== null) {
      // Nothing Python can go in without the venv: every package fails with the one reason, and the rest of the
      // runtime (npm, the seccomp filter, the egress files) is still installed.
      log(`python: the virtual environment could not be made: ${problem}`);
      return { installed: [], failed: options.pythonPackages.map((name) => ({ name, why: problem })) };
    }
  }
  const present = await pythonDistributions(options.dir);
  const have = options.pythonPackages.filter((spec) => {
    const name = bareName(spec);
    return name !== null && present.has(normalName(name));
  });
  const wanted = options.pythonPackages.filter((spec) => !have.includes(spec));
  if (have.length > 0) log(`python: ${have.length} of ${options.pythonPackages.length} packages already installed`);
  const py = venvPython(options.dir);
  const outcome = await installAll(
    'pip',
    wanted,
    (names) =>
      exec(
        /*turbopackIgnore: true*/ py,
        // Two retries, not pip's five: an index that cannot be reached fails in about a second, not eight.
        ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', '--retries', '2', ...names],
        { maxBuffer: 16 << 20 },
      ),
    log,
  );
  await retargetScripts(options.dir);
  return { installed: [...have, ...outcome.installed], failed: outcome.failed };
}

/**
 * The venv's console scripts (`pdfplumber`, `pip`, ...) start with `#!<host runtime>/python/bin/python3`, a path the
 * sandbox does not have (it mounts the runtime at /opt/skillchat-runtime): point them there. They are for the
 * sandbox only; installing runs `python3 -m pip`, which needs no script.
 */
export async function retargetScripts(dir: string): Promise<number> {
  const bin = path.join(/*turbopackIgnore: true*/ dir, 'python', 'bin');
  const hostPython = path.join(/*turbopackIgnore: true*/ bin, 'python');
  const inside = `#!${RUNTIME_MOUNT}/python/bin/python`;
  let changed = 0;
  for (const name of await fs.promises.readdir(/*turbopackIgnore: true*/ bin).catch(() => [] as string[])) {
    const file = path.join(/*turbopackIgnore: true*/ bin, name);
    const stat = await fs.promises.lstat(/*turbopackIgnore: true*/ file).catch(() => null);
    if (!stat?.isFile() || stat.size > 1 << 20) continue;
    const text = await fs.promises.readFile(/*turbopackIgnore: true*/ file, 'utf8').catch(() => '');
    if (!text.startsWith(`#!${hostPython}`)) continue;
    await fs.promises.writeFile(/*turbopackIgnore: true*/ file, inside + text.slice(2 + hostPython.length));
    changed++;
  }
  return changed;
}

/** Packages the last install could not get from the index (install.json), for the hint of a run that needs one. */
export async function unavailablePackages(dir: string): Promise<string[]> {
  const record = await readInstallRecord(dir);
  return [...record.python, ...record.node].map((f) => f.name);
}

async function installNode(
  options: { dir: string; nodePackages: string[] },
  log: (line: string) => void,
): Promise<InstallOutcome> {
  const nodeDir = path.join(/*turbopackIgnore: true*/ options.dir, 'node');
  await fs.promises.mkdir(/*turbopackIgnore: true*/ nodeDir, { recursive: true });
  const manifest = path.join(/*turbopackIgnore: true*/ nodeDir, 'package.json');
  const pkg = await fs.promises
    .readFile(/*turbopackIgnore: true*/ manifest, 'utf8')
    .then(JSON.parse)
    .catch(() => null);
  if (!pkg) {
    await fs.promises.writeFile(
      /*turbopackIgnore: true*/ manifest,
      `${JSON.stringify({ name: 'skillchat-runtime', private: true }, null, 2)}\n`,
    );
  }
  const have: string[] = [];
  for (const spec of options.nodePackages) {
    const pinned = pinnedMajor(spec);
    const name = bareName(spec) ?? pinned?.name;
    const version = name && pkg?.dependencies?.[name] ? await nodePackageVersion(options.dir, name) : null;
    if (version && (!pinned || Number(version.split('.')[0]) === pinned.major)) have.push(spec);
  }
  const wanted = options.nodePackages.filter((spec) => !have.includes(spec));
  if (have.length > 0) log(`node: ${have.length} of ${options.nodePackages.length} packages already installed`);
  const outcome = await installAll(
    'npm',
    wanted,
    (names) =>
      exec(/*turbopackIgnore: true*/ 'npm', ['install', '--no-audit', '--no-fund', '--prefix', nodeDir, ...names], {
        maxBuffer: 16 << 20,
      }),
    log,
  );
  return { installed: [...have, ...outcome.installed], failed: outcome.failed };
}

export interface RuntimeInstallOptions {
  dir: string;
  python: string;
  pythonPackages: string[];
  nodePackages: string[];
  /** false: leave the system packages alone (`--no-system`, for people who manage them themselves). */
  system?: boolean;
  /** The seccomp filter's generator (default: under the app folder). */
  seccompGenerator?: string;
  /** The app folder, whose server/toolchain/ holds the egress files (default SKILLCHAT_APP_DIR or the working one). */
  appDir?: string;
}

export interface RuntimeInstallOutcome {
  python: InstallOutcome;
  node: InstallOutcome;
  /** null when skipped. */
  system: SystemInstallOutcome | null;
  seccomp: SeccompFilter;
}

/** Builds or tops up the runtime. Idempotent: what is present is kept and not asked for again. */
export async function installRuntime(
  options: RuntimeInstallOptions,
  log: (line: string) => void,
): Promise<RuntimeInstallOutcome> {
  // npm at the same time as apt and then pip (on a fresh machine apt takes the longest). pip waits for apt: the
  // venv is made from the host's python3 and runs on its standard library, which apt may upgrade (python3-uno pulls
  // the newest libpython3.11, and with it the standard library's package). The seccomp filter after apt, whose
  // python3-seccomp builds it.
  await fs.promises.mkdir(/*turbopackIgnore: true*/ options.dir, { recursive: true });
  const systemThenPython = async () => {
    const system = options.system === false ? null : await installSystemPackages(log);
    return [system, await installPython(options, log)] as const;
  };
  const named = (spec: string) => pinnedMajor(spec)?.name ?? spec;
  const nodePackages = [
    ...options.nodePackages,
    ...RUNTIME_NODE_PACKAGES.filter((own) => !options.nodePackages.some((spec) => named(spec) === named(own))),
  ];
  const [[system, python], node] = await Promise.all([
    systemThenPython(),
    installNode({ ...options, nodePackages }, log),
  ]);
  const seccomp = await ensureSeccompFilter(options.dir, options.seccompGenerator ?? seccompGenerator());
  log(seccomp.path !== null ? `seccomp filter: ${seccomp.path}` : `seccomp filter NOT built: ${seccomp.reason}`);
  const egress = await installEgressAssets(options.dir, options.appDir);
  log(egress.ok ? `egress files: ${egress.dir}` : `egress files NOT installed: ${egress.reason}`);
  await fs.promises.writeFile(
    /*turbopackIgnore: true*/ installRecord(options.dir),
    `${JSON.stringify({ python: { failed: python.failed }, node: { failed: node.failed } }, null, 2)}\n`,
  );
  // The sandbox uid must be able to read (not write) everything.
  await exec(/*turbopackIgnore: true*/ 'chmod', ['-R', 'a+rX', options.dir]).catch(() => {});
  return { python, node, system, seccomp };
}

/** Import names that differ from the package that provides them. */
const PYTHON_PACKAGE_OF: Readonly<Record<string, string>> = {
  docx: 'python-docx',
  pptx: 'python-pptx',
  PIL: 'pillow',
  yaml: 'pyyaml',
  fitz: 'pymupdf',
  bs4: 'beautifulsoup4',
  cv2: 'opencv-python',
  sklearn: 'scikit-learn',
};

const SYSTEM_PROGRAMS: Readonly<Record<string, string>> = {
  soffice: 'LibreOffice',
  libreoffice: 'LibreOffice',
  pandoc: 'pandoc',
  qpdf: 'qpdf',
  pdftoppm: 'poppler-utils',
  pdftotext: 'poppler-utils',
  pdfinfo: 'poppler-utils',
};

const INSTALL = '`bin/skills runtime install`';

/**
 * One sentence for a script that failed for want of a runtime package or system program, naming what the
 * operator runs; null when `stderr` shows no such failure. `unavailable`: packages the last install could not
 * get from the index (RuntimeReport's `failed`), which the operator must provide first. `installs`: the run could
 * install from the package indexes (runtime.installs `allow`), so a missing package is for the run to install.
 */
export function missingPackageHint(
  stderr: string,
  unavailable: readonly string[] = [],
  options: { installs?: boolean } = {},
): string | null {
  const lacking = (pkg: string) =>
    unavailable.some((u) => normalName(u) === normalName(pkg))
      ? `; the package index this server installs from lacks ${pkg}, so the operator must provide it there first`
      : '';
  // `import x` says ModuleNotFoundError: No module named 'x'; `python -m x` says python3: No module named x.
  const py =
    /ModuleNotFoundError: No module named '([^'.]+)/.exec(stderr) ??
    /python[\d.]*: No module named '?([\w-]+)'?/.exec(stderr);
  if (py) {
    const module = py[1] as string;
    const pkg = PYTHON_PACKAGE_OF[module] ?? module;
    const named = pkg === module ? `\`${pkg}\`` : `\`${pkg}\` (module \`${module}\`)`;
    if (options.installs) {
      return `The Python package ${named} is not installed: \`pip install ${pkg}\` installs it for this chat.`;
    }
    return (
      `The Python package ${named} is not in the skills runtime: the server's operator adds it to ` +
      `runtime.pythonPackages if needed and runs ${INSTALL}${lacking(pkg)}.`
    );
  }
  const node = /Cannot find (?:module|package) '((?:@[^/'\s]+\/)?[^/'\s]+)[^']*'/.exec(stderr);
  if (node && !/^[./]/.test(node[1] as string) && !(node[1] as string).startsWith('node:')) {
    const pkg = node[1] as string;
    if (options.installs) {
      return `The Node package \`${pkg}\` is not installed: \`npm install ${pkg}\` installs it in this chat's workspace.`;
    }
    return (
      `The Node package \`${pkg}\` is not in the skills runtime: the server's operator adds it to ` +
      `runtime.nodePackages if needed and runs ${INSTALL}${lacking(pkg)}.`
    );
  }
  const names = Object.keys(SYSTEM_PROGRAMS).join('|');
  const program = new RegExp(
    `\\b(${names}): (?:command )?not found|No such file or directory: '(?:/usr/bin/)?(${names})'|spawn (?:/usr/bin/)?(${names}) ENOENT`,
  ).exec(stderr);
  if (program) {
    const name = (program[1] ?? program[2] ?? program[3]) as string;
    return (
      `\`${name}\` (${SYSTEM_PROGRAMS[name]}) is not installed on this server: the operator runs ${INSTALL} as ` +
      'root on Debian, or the apt-get line it prints.'
    );
  }
  if (options.installs) {
    if (/\b(Could not find a version that satisfies|No matching distribution found|E404|ETARGET)\b/.test(stderr)) {
      return (
        "The package is not on this server's package indexes, the only ones installs reach: the operator adds it " +
        'there, or to runtime.pythonPackages or runtime.nodePackages.'
      );
    }
    return null;
  }
  if (
    /\b(ENOTCACHED|ENETUNREACH|EAI_AGAIN|Could not find a version that satisfies|NewConnectionError|Temporary failure in name resolution)\b/.test(
      stderr,
    )
  ) {
    return (
      "The sandbox has no network, so nothing can be installed from inside it: the server's operator adds the " +
      `package to runtime.pythonPackages or runtime.nodePackages and runs ${INSTALL}.`
    );
  }
  return null;
}
