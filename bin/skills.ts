/**
 * `skills`: the skills-ref commands (`validate`, `read-properties`, `to-prompt`, same output and exit codes) and the
 * app's view of skills (`list`, `match`, `read-resource`), all thin layers over server/skills/. Run through the
 * `bin/skills` wrapper: the bundle of this file (bin/build-cli.mjs) with node, or this file through tsx.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  type Command,
  errorMessage,
  type Io,
  isUsageError,
  PROGRAM,
  PROJECT_DIR,
  printUsageError,
  twoColumns,
} from './cli/command';

/**
 * Each command is imported when it runs, so a call loads only what its command needs: `validate` does not pay for
 * zod, the installer's zip libraries or the matcher. In the bundle each `./cli/X` imported here is a CommonJS file
 * of its own, bin/dist/X.cjs, loaded with require (bin/build-cli.mjs).
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  validate: async () => (await import('./cli/skills-ref')).validateCommand,
  'read-properties': async () => (await import('./cli/skills-ref')).readPropertiesCommand,
  'to-prompt': async () => (await import('./cli/skills-ref')).toPromptCommand,
  list: async () => (await import('./cli/list')).listCommand,
  match: async () => (await import('./cli/match')).matchCommand,
  'read-resource': async () => (await import('./cli/read-resource')).readResourceCommand,
  install: async () => (await import('./cli/install')).installCommand,
  uninstall: async () => (await import('./cli/install')).uninstallCommand,
  export: async () => (await import('./cli/install')).exportCommand,
  runtime: async () => (await import('./cli/runtime')).runtimeCommand,
  eval: async () => (await import('./cli/eval')).evalCommand,
};

async function usage(): Promise<string> {
  const all = await Promise.all(Object.values(COMMANDS).map((load) => load()));
  const commands = twoColumns(all.map((c) => [c.name, c.summary] as const));
  const options = twoColumns([
    ['--version', 'Show the version and exit.'],
    ['--help', 'Show this message and exit.'],
  ]);
  return (
    `Usage: ${PROGRAM} [OPTIONS] COMMAND [ARGS]...\n\n` +
    '  Agent Skills tools for skillchat: validate skills the way skills-ref does,\n' +
    '  and see what the app loads and matches.\n\n' +
    `Options:\n${options}\n\nCommands:\n${commands}\n\n` +
    `Run '${PROGRAM} COMMAND --help' for a command's options.\n`
  );
}

function version(): string {
  const pkg: { version?: unknown } = JSON.parse(fs.readFileSync(path.join(PROJECT_DIR, 'package.json'), 'utf8'));
  return `${PROGRAM}, version ${String(pkg.version)}\n`;
}

async function main(argv: readonly string[], io: Io): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h' || (first === 'help' && rest.length === 0)) {
    io.out(await usage());
    return 0;
  }
  if (first === '--version') {
    io.out(version());
    return 0;
  }
  // `help COMMAND` is `COMMAND --help`.
  const [name, args] = first === 'help' ? [rest[0], ['--help']] : [first, rest];
  const load = name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    io.err(await usage());
    if (name !== undefined) io.err(`\nError: No such command '${name}'.\n`);
    return 2;
  }
  const command = await load();
  try {
    return await command.run(args, io);
  } catch (error) {
    if (isUsageError(error)) return printUsageError(error, io);
    // A broken skillchat.config.json is the person's to fix, not a crash: say what is wrong with it. By name, as
    // isUsageError: in the bundle the command's copy of server/config.ts is not this file's.
    if (error instanceof Error && error.name === 'ConfigError') {
      io.err(`Error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

// `skills list | head` closes the pipe early; that is not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

main(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  // Written out when nothing is left queued: stdout to a file is synchronous, and so is a pipe on Linux.
  outBytes: (bytes) => {
    process.stdout.write(bytes);
    return process.stdout.writableLength === 0;
  },
  err: (text) => process.stderr.write(text),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `${PROGRAM}: unexpected error: ${error instanceof Error ? error.stack : errorMessage(error)}\n`,
    );
    process.exitCode = 1;
  },
);
