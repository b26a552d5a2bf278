/**
 * `npm test`'s first step: what the suite needs on the machine besides `npm install`, so that the README's test
 * command is all a fresh machine needs, as `npm start` is for the app. The tests run real components: Debian's
 * Chromium (Playwright never downloads a browser), PostgreSQL's server binaries (the `*.pg.test.ts` suites start a
 * scratch cluster of their own), and the skills runtime with its system programs (bubblewrap, LibreOffice, poppler,
 * python3-seccomp, python3-venv, ...: the sandbox suites run against them), and the official MCP
 * conformance suite with the Node it runs under (from the npm registry, pinned by test/conformance/pins/).
 *
 * As root on Debian the missing ones are installed with apt, then the runtime is topped up (what
 * `bin/skills runtime install` does; a few seconds when everything is there). Otherwise nothing runs: the lines to
 * run are printed and the test command stops at once, rather than failing hundreds of tests one by one.
 */
import path from 'node:path';
import { type AppConfig, loadConfig } from '../server/config';
import { seccompGenerator } from '../server/toolchain/seccomp';
import { installRuntime } from '../server/toolchain/skills-runtime';
import { installSystemPackages, SYSTEM_COMPONENTS, type SystemComponent } from '../server/toolchain/system-packages';
import { ensureConformanceSuite } from '../test/conformance/suite';

export const TEST_COMPONENTS: readonly SystemComponent[] = [
  {
    id: 'chromium',
    label: 'Chromium',
    purpose: 'the browser the e2e tests drive',
    packages: ['chromium'],
    files: ['/usr/bin/chromium'],
  },
  {
    id: 'postgresql',
    label: 'PostgreSQL server',
    purpose: 'the scratch cluster the PostgreSQL suites start',
    packages: ['postgresql'],
    inSubfolder: { parent: '/usr/lib/postgresql', file: 'bin/initdb' },
  },
];

export interface PrerequisiteOptions {
  log: (line: string) => void;
  components?: readonly SystemComponent[];
  /** Stands in for the process's uid (tests). */
  root?: boolean;
  /** Tops up the skills runtime once the system packages are there. */
  runtime?: () => Promise<void>;
  /** Installs the pinned MCP conformance suite (once per pin). */
  conformance?: () => Promise<void>;
}

/** 0 when the machine has what the tests need (installed now or before); 1 with the lines to run otherwise. */
export async function ensureTestPrerequisites(options: PrerequisiteOptions): Promise<number> {
  const { log } = options;
  const components = options.components ?? [...TEST_COMPONENTS, ...SYSTEM_COMPONENTS];
  const system = await installSystemPackages(log, components, { root: options.root });
  if (system.missing.length > 0) {
    log(
      system.commands.length > 0
        ? 'npm test: the tests need the packages above; run those lines, then `npm test` again.'
        : `npm test: ${system.missing.map((m) => m.id).join(', ')} could not be installed (see above).`,
    );
    return 1;
  }
  await options.runtime?.();
  await options.conformance?.();
  return 0;
}

function runtimeOf(config: AppConfig, log: (line: string) => void): () => Promise<void> {
  return async () => {
    const { runtime } = config.execution;
    // The system packages were just checked with the test ones, in one apt run.
    await installRuntime({ ...runtime, system: false, seccompGenerator: seccompGenerator() }, log);
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const log = (line: string) => console.log(`test setup: ${line}`);
  const config = loadConfig({ appDir: process.env.SKILLCHAT_APP_DIR ?? process.cwd() });
  const conformance = async () => {
    await ensureConformanceSuite(path.resolve(import.meta.dirname, '..'), log);
  };
  process.exit(await ensureTestPrerequisites({ log, runtime: runtimeOf(config, log), conformance }));
}
