/**
 * LibreOffice's user profile, prepared once per LibreOffice version and copied into each run that starts soffice.
 *
 * A fresh profile costs soffice over a second at every start (it builds its configuration and caches first); a
 * profile made once and reused brings a one-page conversion from 1.5-1.9 s to 0.4 s. Runs must never share a
 * writable profile (one chat's settings, macros or recent files would reach the next), so the prepared one is
 * read-only at /opt/skillchat-office/profile and each run copies it, on first use, into its own /tmp:
 *
 *   <runtime>/office-profile/<version key>/profile/       made by soffice converting a text file and a CSV, in a run
 *                                           /bin/soffice   `soffice` and `libreoffice` first on the run's PATH: a
 *                                           /bin/libreoffice  conversion asks the chat's kept LibreOffice first
 *                                                          (office-host.ts); else copy the profile to
 *                                                          $HOME/.config/libreoffice/4 when it is not there, then
 *                                                          the real soffice
 *                                           /bin/office-client.py, office-host.py   that LibreOffice's two sides
 *
 * A caller that names its own profile (`-env:UserInstallation=`, the document skills' office.py) is left alone;
 * office.py seeds its throw-away profile from `SKILLCHAT_OFFICE_PROFILE` itself. Nothing in the profile changes
 * LibreOffice's defaults: macro security stays as shipped.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { processWide } from '../process-wide';
import { runtimeInstalled } from '../toolchain/skills-runtime';
import type { ExecutionConfig } from './config';
import { sandboxLimits } from './config';
import type { SandboxResult } from './port';

/** Where a run finds the prepared profile and the wrappers (bound read-only by the backend). */
export const OFFICE_MOUNT = '/opt/skillchat-office';
const VERSION_FILE = '/usr/lib/libreoffice/program/versionrc';
/**
 * Changes whenever how it is prepared changes, so an old preparation is not used (the wrapper and the Python files
 * are hashed into the key as well).
 */
const RECIPE = 3;
/** The kept LibreOffice's two sides (office-host.ts), copied from server/sandbox/ into the prepared `bin/`. */
const PYTHON_FILES = ['office-host.py', 'office-client.py'] as const;
const BUILD_TIMEOUT_MS = 120_000;

const WRAPPER = `#!/bin/sh
# A conversion goes first to the chat's LibreOffice kept running (server/sandbox/office-host.ts), when the run has
# its socket; the client exits 75 when that LibreOffice does not take it, and soffice does it here as always.
if [ -S "\${SKILLCHAT_OFFICE_SOCKET:-}" ] && [ -x /usr/bin/python3 ]; then
  case " $* " in *" -env:"*) ;; *" --convert-to"*|*" -convert-to"*)
    /usr/bin/python3 -I -S ${OFFICE_MOUNT}/bin/office-client.py "$@"
    status=$?
    [ "$status" -ne 75 ] && exit "$status" ;;
  esac
fi
# LibreOffice from the profile prepared once for this version (server/sandbox/office-profile.ts), copied into this
# run's own HOME on first use. A caller naming its own profile (-env:UserInstallation=...) gets exactly that.
case " $* " in *" -env:UserInstallation="*) ;; *)
  profile="\${HOME:-/tmp}/.config/libreoffice/4"
  if [ ! -e "$profile" ]; then
    mkdir -p "$profile" && cp -R ${OFFICE_MOUNT}/profile/. "$profile/" 2>/dev/null || rm -rf "$profile"
  fi ;;
esac
# soffice.bin itself, not /usr/bin/soffice: its shell script and oosplash (which looks for Java at every start) cost
# about 90 ms of a 600 ms conversion. What they add is kept: file locking on, and a start again when soffice.bin asks
# for one (exit 79 or 81, after it changed its own profile), done by the full launcher.
SAL_ENABLE_FILE_LOCKING=1 /usr/lib/libreoffice/program/soffice.bin "$@"
status=$?
case $status in 79|81) exec /usr/bin/soffice "$@" ;; esac
exit $status
`;

// The profile is made in the default place (HOME=/tmp), where the wrapper puts its copies, then handed out.
const BUILD_SCRIPT = `set -e
printf 'LibreOffice profile\\n' > /tmp/text.txt
printf 'a,b\\n1,2\\n' > /tmp/table.csv
soffice --headless --norestore --convert-to pdf --outdir /tmp /tmp/text.txt /tmp/table.csv >&2
test -f /tmp/text.pdf && test -f /tmp/table.pdf
cp -R /tmp/.config/libreoffice/4 /workspace/profile
chmod -R u+rwX,go+rX,go-w /workspace/profile`;

/** Runs a helper command in the sandbox (sandbox/run.ts `runSandboxed`, passed in: it calls this module). */
export type OfficeBuildRunner = (
  argv: string[],
  dir: string,
  config: ExecutionConfig,
) => Promise<{ ok: true; output: SandboxResult } | { ok: false; error: string }>;

const state = processWide('office-profiles', () => ({
  ready: new Map<string, string>(),
  building: new Map<string, Promise<string | null>>(),
  sources: undefined as Buffer[] | null | undefined,
}));

/**
 * The Python files' sources, read once per process from the app folder (the Next build bundles neither); null when
 * they are not there (no kept LibreOffice then: every conversion is soffice's own).
 */
function pythonSources(): Buffer[] | null {
  if (state.sources !== undefined) return state.sources;
  const appDir = process.env.SKILLCHAT_APP_DIR ?? process.cwd();
  try {
    state.sources = PYTHON_FILES.map((name) =>
      fs.readFileSync(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ appDir, 'server', 'sandbox', name)),
    );
  } catch {
    state.sources = null;
  }
  return state.sources;
}

/** This machine's LibreOffice and what is prepared for it as a short key, or null when it has no LibreOffice. */
function versionKey(): string | null {
  try {
    const stat = fs.statSync(VERSION_FILE);
    const hash = createHash('sha256').update(`${RECIPE}\0${stat.mtimeMs}\0`).update(fs.readFileSync(VERSION_FILE));
    hash.update('\0').update(WRAPPER);
    for (const source of pythonSources() ?? []) hash.update('\0').update(source);
    return hash.digest('hex').slice(0, 16);
  } catch {
    return null;
  }
}

function folderFor(config: ExecutionConfig, key: string): string {
  return path.join(/*turbopackIgnore: true*/ config.runtime.dir, 'office-profile', key);
}

/**
 * The prepared folder for this LibreOffice, or null while there is none. `runtime install` prepares it; after an
 * upgrade of LibreOffice the first run on a server with the skills runtime starts preparing it in the background (the
 * run that asked goes on without it). Where there is no runtime (tests, a bare checkout) nothing is started: a run
 * that never needs LibreOffice should not wait behind it; `prepareOffice` makes it on request.
 */
export async function officeProfile(config: ExecutionConfig, build: OfficeBuildRunner): Promise<string | null> {
  const key = versionKey();
  if (!key) return null;
  const folder = folderFor(config, key);
  if (state.ready.get(key) === folder) return folder;
  if (fs.existsSync(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ folder, 'bin', 'soffice'))) {
    state.ready.set(key, folder);
    return folder;
  }
  if (await runtimeInstalled(config.runtime.dir)) void prepareOfficeProfile(config, build);
  return null;
}

/** Prepares the profile now (once per process and version; a failure is tried again next time): the folder or null. */
export function prepareOfficeProfile(config: ExecutionConfig, build: OfficeBuildRunner): Promise<string | null> {
  const key = versionKey();
  if (!key) return Promise.resolve(null);
  const folder = folderFor(config, key);
  const pending = state.building.get(folder);
  if (pending) return pending;
  const made = buildProfile(config, folder, build)
    .catch((error: unknown) => {
      console.error(`[skillchat] LibreOffice profile: ${(error as Error).message}`);
      return null;
    })
    .then((done) => {
      if (done) state.ready.set(key, done);
      else state.building.delete(folder);
      return done;
    });
  state.building.set(folder, made);
  return made;
}

async function buildProfile(config: ExecutionConfig, folder: string, build: OfficeBuildRunner): Promise<string> {
  if (fs.existsSync(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ folder, 'bin', 'soffice'))) {
    return folder;
  }
  const parent = path.dirname(folder);
  await fs.promises.mkdir(/*turbopackIgnore: true*/ parent, { recursive: true, mode: 0o755 });
  const work = await fs.promises.mkdtemp(/*turbopackIgnore: true*/ `${folder}.building-`);
  try {
    await fs.promises.chmod(/*turbopackIgnore: true*/ work, 0o755);
    const run = await build(['bash', '-c', BUILD_SCRIPT], work, config);
    if (!run.ok) throw new Error(run.error);
    if (run.output.exitCode !== 0 || run.output.stop) {
      throw new Error(`soffice could not prepare it: ${(run.output.error ?? run.output.stderr).slice(0, 300)}`);
    }
    const bin = path.join(/*turbopackIgnore: true*/ work, 'bin');
    await fs.promises.mkdir(/*turbopackIgnore: true*/ bin, { mode: 0o755 });
    for (const name of ['soffice', 'libreoffice']) {
      await fs.promises.writeFile(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ bin, name), WRAPPER, {
        mode: 0o755,
      });
    }
    const sources = pythonSources() ?? [];
    for (const [i, name] of PYTHON_FILES.entries()) {
      if (!sources[i]) continue;
      const file = path.join(/*turbopackIgnore: true*/ bin, name);
      await fs.promises.writeFile(/*turbopackIgnore: true*/ file, sources[i] as Buffer, { mode: 0o644 });
    }
    await fs.promises.rename(/*turbopackIgnore: true*/ work, folder).catch(async (error: NodeJS.ErrnoException) => {
      // Another process prepared it meanwhile: theirs is as good.
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
    return folder;
  } finally {
    await fs.promises.rm(/*turbopackIgnore: true*/ work, { recursive: true, force: true });
  }
}

/** The limits of the run that prepares it: the server's, with room for a cold LibreOffice start. */
export function buildLimits(config: ExecutionConfig) {
  const limits = sandboxLimits(config);
  return { ...limits, timeoutMs: Math.max(limits.timeoutMs, BUILD_TIMEOUT_MS), maxOutputBytes: 64 * 1024 };
}
