/**
 * The system half of the skills runtime: bubblewrap (the sandbox itself: without it no code runs), the programs
 * document skills call (LibreOffice, pandoc, qpdf, poppler's pdftoppm), the fonts LibreOffice lays pages out with,
 * python3-seccomp (it builds the sandbox's seccomp filter, seccomp.ts) and python3-venv (a minimal Debian's python3
 * has no `venv` with pip, so the skills' Python environment could not be made). All are Debian packages under /usr,
 * the only host programs the sandbox mounts.
 *
 * `bin/skills runtime install` installs the missing ones as root on Debian (LibreOffice from `<codename>-backports`
 * on bookworm, whose own 7.4 aborts in the headless macro path xlsx recalculation takes); anywhere else it prints the
 * commands. Detection looks at files (and asks dpkg for versions), so a run where everything is present forks once.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export interface SystemComponent {
  id: string;
  label: string;
  /** Who needs it, for the status line. */
  purpose: string;
  /** Debian packages providing it. */
  packages: string[];
  /** From `<codename>-backports` on bookworm (see the module comment). */
  backports?: boolean;
  /** Present when every one of these exists. */
  files?: string[];
  /** Present when /usr/bin/python3 can import it (a comma-separated list imports several). */
  pythonModule?: string;
  /** Present when one of the folders under `parent` holds `file` (initdb under /usr/lib/postgresql: any version). */
  inSubfolder?: { parent: string; file: string };
  /** The program's own version, where dpkg cannot tell: a command and a pattern whose group 1 is the version. */
  version?: { command: string[]; pattern: RegExp };
  minVersion?: { version: string; why: string };
}

export const SYSTEM_COMPONENTS: readonly SystemComponent[] = [
  {
    id: 'bubblewrap',
    label: 'bubblewrap',
    purpose: 'the sandbox every script and command runs in (without it no code runs)',
    packages: ['bubblewrap'],
    files: ['/usr/bin/bwrap'],
    version: { command: ['/usr/bin/bwrap', '--version'], pattern: /^bubblewrap (\S+)/ },
  },
  {
    id: 'libreoffice',
    label: 'LibreOffice (headless)',
    purpose: 'converting and recalculating docx, xlsx and pptx; its Python bridge',
    // python3-uno: the Python bridge (the docx skill accepts tracked changes through it); it must match soffice.
    packages: ['libreoffice-calc-nogui', 'libreoffice-writer-nogui', 'libreoffice-impress-nogui', 'python3-uno'],
    backports: true,
    files: [
      '/usr/bin/soffice',
      '/usr/lib/python3/dist-packages/uno.py',
      '/usr/lib/libreoffice/program/libsclo.so',
      '/usr/lib/libreoffice/program/libswlo.so',
      '/usr/lib/libreoffice/program/libsdlo.so',
    ],
    version: { command: ['/usr/bin/soffice', '--version'], pattern: /LibreOffice (\d+(?:\.\d+)+)/ },
    minVersion: { version: '25.2', why: 'older releases abort running the headless macro xlsx recalculation uses' },
  },
  {
    id: 'pandoc',
    label: 'pandoc',
    purpose: 'converting between document formats',
    packages: ['pandoc'],
    files: ['/usr/bin/pandoc'],
    version: { command: ['/usr/bin/pandoc', '--version'], pattern: /^pandoc (\S+)/ },
  },
  {
    id: 'qpdf',
    label: 'qpdf',
    purpose: 'PDF structure: merge, split, decrypt',
    packages: ['qpdf'],
    files: ['/usr/bin/qpdf'],
    version: { command: ['/usr/bin/qpdf', '--version'], pattern: /^qpdf version (\S+)/ },
  },
  {
    id: 'poppler',
    label: 'poppler-utils',
    purpose: 'pdftoppm and pdftotext (PDF previews, page images, text)',
    packages: ['poppler-utils'],
    files: ['/usr/bin/pdftoppm', '/usr/bin/pdftotext'],
    version: { command: ['/usr/bin/pdftoppm', '-v'], pattern: /pdftoppm version (\S+)/ },
  },
  {
    id: 'fonts',
    label: 'fonts',
    purpose: 'DejaVu, Liberation (Arial/Times/Courier metrics), Carlito and Caladea (Calibri/Cambria metrics)',
    packages: ['fonts-dejavu-core', 'fonts-liberation2', 'fonts-crosextra-carlito', 'fonts-crosextra-caladea'],
    files: [
      '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
      '/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf',
      '/usr/share/fonts/truetype/crosextra/Carlito-Regular.ttf',
      '/usr/share/fonts/truetype/crosextra/Caladea-Regular.ttf',
    ],
  },
  {
    id: 'seccomp',
    label: 'python3-seccomp',
    purpose: "libseccomp's bindings, which build the sandbox's seccomp filter",
    packages: ['python3-seccomp'],
    pythonModule: 'seccomp',
  },
  {
    id: 'python-venv',
    label: 'python3-venv',
    purpose: "Python's venv with pip, which makes the skills' Python environment",
    packages: ['python3-venv'],
    // Debian ships `venv` in the standard library but its `ensurepip` (the part that puts pip in) in python3-venv.
    pythonModule: 'ensurepip, venv',
  },
];

export interface SystemToolStatus {
  id: string;
  label: string;
  purpose: string;
  found: boolean;
  version: string | null;
  /** Found but unusable (too old), or null. */
  problem: string | null;
  /** The apt-get line that installs it (after the backports suite is in apt's sources, for LibreOffice). */
  install: string;
}

/** The upstream part of a Debian version: `4:25.2.3-2+deb13u5~bpo12+1` -> `25.2.3`. */
export function upstreamVersion(debian: string): string {
  return debian.replace(/^\d+:/, '').replace(/-[^-]*$/, '');
}

/** -1, 0 or 1, comparing dotted numbers (`7.4.7` < `25.2`). */
export function compareVersions(a: string, b: string): number {
  const x = a.split('.').map((n) => Number.parseInt(n, 10) || 0);
  const y = b.split('.').map((n) => Number.parseInt(n, 10) || 0);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

export function installLine(component: SystemComponent, codename = 'bookworm'): string {
  const target = component.backports && codename === 'bookworm' ? ['-t', `${codename}-backports`] : [];
  return ['apt-get', 'install', '-y', ...target, ...component.packages].join(' ');
}

async function exists(file: string): Promise<boolean> {
  return fs.promises
    .access(/*turbopackIgnore: true*/ file)
    .then(() => true)
    .catch(() => false);
}

/** Installed versions of the given Debian packages, by name; empty where dpkg is not there. */
async function dpkgVersions(packages: string[]): Promise<Map<string, string>> {
  // dpkg-query's own ${field} syntax, not a template string.
  const format = ['Package', 'db:Status-Abbrev', 'Version'].map((f) => `\${${f}}`).join('\\t');
  const out = await exec('dpkg-query', ['-W', '-f', `${format}\\n`, ...packages], {
    timeout: 10_000,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' })); // exit 1 when one is unknown
  const versions = new Map<string, string>();
  for (const line of out.stdout.split('\n')) {
    const [name, status, version] = line.split('\t');
    if (name && status?.startsWith('ii') && version) versions.set(name.replace(/:.*$/, ''), version);
  }
  return versions;
}

async function programVersion(spec: NonNullable<SystemComponent['version']>): Promise<string | null> {
  const [command, ...args] = spec.command;
  const out = await exec(/*turbopackIgnore: true*/ command as string, args, { timeout: 15_000 }).catch(
    (error: { stdout?: string; stderr?: string }) => error,
  );
  return spec.pattern.exec(`${out.stdout ?? ''}\n${out.stderr ?? ''}`)?.[1] ?? null;
}

async function present(component: SystemComponent): Promise<boolean> {
  if (component.inSubfolder) {
    const { parent, file } = component.inSubfolder;
    const names = await fs.promises.readdir(/*turbopackIgnore: true*/ parent).catch(() => [] as string[]);
    const found = await Promise.all(names.map((n) => exists(path.join(/*turbopackIgnore: true*/ parent, n, file))));
    return found.some(Boolean);
  }
  if (component.pythonModule) {
    return exec('/usr/bin/python3', ['-c', `import ${component.pythonModule}`], { timeout: 10_000 })
      .then(() => true)
      .catch(() => false);
  }
  const found = await Promise.all((component.files ?? []).map(exists));
  return found.every(Boolean);
}

export async function debianCodename(): Promise<{ debian: boolean; codename: string | null }> {
  const text = await fs.promises.readFile(/*turbopackIgnore: true*/ '/etc/os-release', 'utf8').catch(() => '');
  const field = (key: string) => new RegExp(`^${key}="?([^"\\n]*)"?$`, 'm').exec(text)?.[1] ?? null;
  return { debian: field('ID') === 'debian', codename: field('VERSION_CODENAME') };
}

/** Each component: found (and its version), too old, or missing with the line that installs it. */
export async function describeSystemTools(
  components: readonly SystemComponent[] = SYSTEM_COMPONENTS,
): Promise<SystemToolStatus[]> {
  const [{ codename }, dpkg] = await Promise.all([
    debianCodename(),
    dpkgVersions(components.map((c) => c.packages[0] as string)),
  ]);
  return Promise.all(
    components.map(async (component): Promise<SystemToolStatus> => {
      const found = await present(component);
      // A set of packages (the fonts) has no one version.
      const single = component.version || component.packages.length === 1;
      const fromDpkg = single ? dpkg.get(component.packages[0] as string) : undefined;
      const version = !found
        ? null
        : fromDpkg
          ? upstreamVersion(fromDpkg)
          : component.version
            ? await programVersion(component.version)
            : null;
      const min = component.minVersion;
      const tooOld = found && min && version && compareVersions(version, min.version) < 0;
      return {
        id: component.id,
        label: component.label,
        purpose: component.purpose,
        found,
        version,
        problem: tooOld ? `${version} is older than ${min.version}: ${min.why}` : null,
        install: installLine(component, codename ?? 'bookworm'),
      };
    }),
  );
}

/** apt's view of where Debian comes from, read from its source files (deb822 `.sources` and one-line `.list`). */
export interface AptSources {
  /** The archive URI of the main suite (`http://deb.debian.org/debian`), if a source names it. */
  archive: string | null;
  signedBy: string | null;
  /** Some enabled source already lists `<codename>-backports`. */
  hasBackports: boolean;
}

export function readAptSources(files: Array<{ name: string; text: string }>, codename: string): AptSources {
  const sources: AptSources = { archive: null, signedBy: null, hasBackports: false };
  for (const { name, text } of files) {
    if (name.endsWith('.sources')) {
      for (const stanza of text.split(/\n\s*\n/)) {
        const fields = new Map<string, string>();
        for (const line of stanza.split('\n')) {
          const m = /^([A-Za-z-]+):\s*(.*)$/.exec(line);
          if (m) fields.set((m[1] as string).toLowerCase(), (m[2] as string).trim());
        }
        if (fields.get('enabled') === 'no' || !(fields.get('types') ?? '').split(/\s+/).includes('deb')) continue;
        const suites = (fields.get('suites') ?? '').split(/\s+/);
        if (suites.includes(`${codename}-backports`)) sources.hasBackports = true;
        if (suites.includes(codename) && !sources.archive) {
          sources.archive = (fields.get('uris') ?? '').split(/\s+/)[0] || null;
          sources.signedBy = fields.get('signed-by') || null;
        }
      }
    } else {
      for (const line of text.split('\n')) {
        const m = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)/.exec(line.trim());
        if (!m) continue;
        if (m[2] === `${codename}-backports`) sources.hasBackports = true;
        if (m[2] === codename && !sources.archive) sources.archive = m[1] as string;
      }
    }
  }
  return sources;
}

async function loadAptSources(codename: string): Promise<AptSources> {
  const dir = '/etc/apt/sources.list.d';
  const names = await fs.promises.readdir(/*turbopackIgnore: true*/ dir).catch(() => [] as string[]);
  const paths = [
    '/etc/apt/sources.list',
    ...names.filter((n) => /\.(list|sources)$/.test(n)).map((n) => path.join(/*turbopackIgnore: true*/ dir, n)),
  ];
  const files = await Promise.all(
    paths.map(async (p) => ({
      name: p,
      text: await fs.promises.readFile(/*turbopackIgnore: true*/ p, 'utf8').catch(() => ''),
    })),
  );
  return readAptSources(files, codename);
}

/** What installing the missing components takes: maybe a backports source to add, then apt-get lines. */
export interface AptPlan {
  source: { path: string; content: string } | null;
  commands: string[][];
}

export function planSystemInstall(missing: readonly SystemComponent[], codename: string, sources: AptSources): AptPlan {
  const backports = codename === 'bookworm' ? missing.filter((c) => c.backports) : [];
  const main = missing.filter((c) => !backports.includes(c));
  const plan: AptPlan = { source: null, commands: [] };
  if (missing.length === 0) return plan;
  if (backports.length > 0 && !sources.hasBackports) {
    plan.source = {
      path: `/etc/apt/sources.list.d/${codename}-backports.sources`,
      content: [
        'Types: deb',
        `URIs: ${sources.archive ?? 'http://deb.debian.org/debian'}`,
        `Suites: ${codename}-backports`,
        'Components: main',
        `Signed-By: ${sources.signedBy ?? '/usr/share/keyrings/debian-archive-keyring.gpg'}`,
        '',
      ].join('\n'),
    };
  }
  plan.commands.push(['apt-get', 'update']);
  const packages = (list: readonly SystemComponent[]) => list.flatMap((c) => c.packages);
  if (backports.length > 0) {
    plan.commands.push(['apt-get', 'install', '-y', '-t', `${codename}-backports`, ...packages(backports)]);
  }
  if (main.length > 0) plan.commands.push(['apt-get', 'install', '-y', ...packages(main)]);
  return plan;
}

/** The plan as lines to paste into a shell (`sudo` when not root). */
export function planAsShell(plan: AptPlan, sudo: boolean): string[] {
  const prefix = sudo ? 'sudo ' : '';
  const lines: string[] = [];
  if (plan.source) {
    lines.push(
      `${prefix}tee ${plan.source.path} >/dev/null <<'EOF'`,
      ...plan.source.content.trimEnd().split('\n'),
      'EOF',
    );
  }
  for (const command of plan.commands) lines.push(prefix + command.join(' '));
  return lines;
}

export interface SystemInstallOutcome {
  /** Components present before or installed now. */
  present: string[];
  installed: string[];
  /** Still missing or too old, with why. */
  missing: Array<{ id: string; why: string }>;
  /** Commands for the operator, when this process could not run them (not root, not Debian). */
  commands: string[];
}

/**
 * Installs the missing components when root on Debian; otherwise returns the commands to run. `host.root` stands in
 * for the process's uid (tests check the not-root answer without running apt).
 */
export async function installSystemPackages(
  log: (line: string) => void,
  components: readonly SystemComponent[] = SYSTEM_COMPONENTS,
  host: { root?: boolean } = {},
): Promise<SystemInstallOutcome> {
  const before = await describeSystemTools(components);
  const wanted = (s: SystemToolStatus) => !s.found || s.problem !== null;
  const missing = components.filter((c) => before.some((s) => s.id === c.id && wanted(s)));
  const outcome: SystemInstallOutcome = {
    present: before.filter((s) => !wanted(s)).map((s) => s.id),
    installed: [],
    missing: [],
    commands: [],
  };
  const named = (s: SystemToolStatus) => (s.version ? `${s.label} ${s.version}` : s.label);
  for (const s of before) if (!wanted(s)) log(`system: ${named(s)} present`);
  if (missing.length === 0) return outcome;

  const { debian, codename } = await debianCodename();
  const plan = planSystemInstall(missing, codename ?? 'bookworm', await loadAptSources(codename ?? 'bookworm'));
  const root = host.root ?? process.getuid?.() === 0;
  const canApt = debian && root && (await exists('/usr/bin/apt-get'));
  if (!canApt) {
    outcome.commands = planAsShell(plan, !root);
    outcome.missing = missing.map((c) => ({ id: c.id, why: debian ? 'needs root' : 'not Debian' }));
    log(
      `system: missing ${missing.map((c) => c.label).join(', ')}; ${debian ? 'not root' : 'not Debian'}, so run` +
        `${debian ? '' : ' (these are Debian commands; elsewhere install the equivalents under /usr)'}:`,
    );
    for (const line of outcome.commands) log(`  ${line}`);
    return outcome;
  }
  if (plan.source) {
    log(`system: adding ${plan.source.path}`);
    await fs.promises.writeFile(/*turbopackIgnore: true*/ plan.source.path, plan.source.content);
  }
  for (const command of plan.commands) {
    log(`system: ${command.join(' ')}`);
    const [bin, ...args] = command as [string, ...string[]];
    try {
      await exec(bin, args, {
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
        maxBuffer: 64 << 20,
        timeout: 30 * 60_000,
      });
    } catch (error) {
      const text = `${(error as { stderr?: string }).stderr ?? ''}`.trim() || (error as Error).message;
      log(`system: FAILED: ${text.split('\n').slice(-3).join(' | ')}`);
      break;
    }
  }
  const after = await describeSystemTools(components);
  for (const s of after.filter((a) => missing.some((c) => c.id === a.id))) {
    if (wanted(s)) {
      outcome.missing.push({ id: s.id, why: s.problem ?? 'still missing after apt-get' });
      log(`system: ${s.label} ${s.problem ?? 'still missing'}`);
    } else {
      outcome.installed.push(s.id);
      log(`system: ${named(s)} installed`);
    }
  }
  return outcome;
}
