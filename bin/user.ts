/**
 * `npm run user -- COMMAND`: manage team accounts from a shell on the server, on the database the app uses
 * (`DATABASE_URL=postgres://...`, else the SQLite file from the config). Passwords come from standard input (one
 * line; typed without echo on a terminal), never from arguments, which other users can see in the process list.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { deleteAccount } from '../server/auth/account-data';
import { type Auth, createAuth } from '../server/auth/auth';
import { loadAuthSecret } from '../server/auth/secret';
import {
  addUser,
  disableUser,
  enableUser,
  listUsers,
  ROLE_NAMES,
  type Role,
  setPassword,
  setRole,
  UserAdminError,
} from '../server/auth/users';
import { ConfigError, loadConfig } from '../server/config';
import { closeDatabase, openDatabase } from '../server/db/client';

const USAGE = `Usage: npm run user -- COMMAND [ARGS]

Commands:
  add EMAIL [--role admin|member] [--name NAME]   Create a user (role: member); password from stdin
  passwd EMAIL                                     Set a new password (stdin); signs the user out everywhere
  disable EMAIL                                    Refuse sign-in and end the user's sessions
  enable EMAIL                                     Allow a disabled user again
  role EMAIL admin|member                          Change a user's role
  delete EMAIL                                     Delete a user and their sessions
  list [--json]                                    List users

Example: printf '%s\\n' 'a long password' | npm run user -- add ann@example.com --role admin
`;

class UsageError extends Error {}

async function readPassword(): Promise<string> {
  const stdin = process.stdin;
  if (stdin.isTTY) return readHiddenLine();
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(chunk as Buffer);
  // The first line only, without its line ending: `echo pw |` and a file both work.
  const text = Buffer.concat(chunks).toString('utf8');
  return text.split(/\r?\n/)[0] ?? '';
}

function readHiddenLine(): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write('Password: ');
  stdin.setRawMode(true);
  stdin.resume();
  return new Promise((resolve, reject) => {
    let line = '';
    const onData = (data: Buffer) => {
      for (const ch of data.toString('utf8')) {
        if (ch === '\r' || ch === '\n') {
          done();
          resolve(line);
          return;
        }
        if (ch === '\u0003') {
          done();
          reject(new UsageError('cancelled'));
          return;
        }
        line = ch === '\u007f' ? line.slice(0, -1) : line + ch;
      }
    };
    const done = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    stdin.on('data', onData);
  });
}

function parseRole(value: string | undefined): Role {
  const role = value ?? 'member';
  if (!(ROLE_NAMES as readonly string[]).includes(role)) {
    throw new UsageError(`Unknown role "${role}": use ${ROLE_NAMES.join(' or ')}`);
  }
  return role as Role;
}

function oneEmail(positionals: string[], command: string): string {
  const [email, ...rest] = positionals;
  if (!email || rest.length > 0) throw new UsageError(`${command} takes one EMAIL`);
  return email;
}

type AccountData = Parameters<typeof deleteAccount>[2];

async function run(auth: Auth, argv: string[], data: AccountData): Promise<string> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { role: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } },
  });
  const [command, ...args] = positionals;
  switch (command) {
    case 'add': {
      const email = oneEmail(args, 'add');
      const role = parseRole(values.role);
      const user = await addUser(auth, { email, password: await readPassword(), role, name: values.name });
      return `Added ${user.email} (${user.role})`;
    }
    case 'passwd': {
      const email = oneEmail(args, 'passwd');
      await setPassword(auth, email, await readPassword());
      return `Password changed for ${email}; their sessions were ended`;
    }
    case 'disable':
      await disableUser(auth, oneEmail(args, 'disable'));
      return `Disabled ${args[0]}`;
    case 'enable':
      await enableUser(auth, oneEmail(args, 'enable'));
      return `Enabled ${args[0]}`;
    case 'role': {
      const [email, role, ...rest] = args;
      if (!email || !role || rest.length > 0) throw new UsageError('role takes EMAIL and a role');
      await setRole(auth, email, parseRole(role));
      return `${email} is now ${role}`;
    }
    case 'delete': {
      const { chats, filesLeft } = await deleteAccount(auth, oneEmail(args, 'delete'), data);
      const left = filesLeft
        ? `; the files of ${filesLeft} could not all be removed yet (retried at the next deletion)`
        : '';
      return `Deleted ${args[0]} and their ${chats} chat(s)${left}`;
    }
    case 'list': {
      const users = await listUsers(auth);
      if (values.json) return JSON.stringify(users, null, 2);
      if (users.length === 0) return 'No users';
      return users.map((u) => `${u.email}\t${u.role}${u.disabled ? '\tdisabled' : ''}`).join('\n');
    }
    default:
      throw new UsageError(command ? `Unknown command "${command}"` : 'Missing command');
  }
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  const config = loadConfig();
  const dataDir = path.dirname(config.databasePath);
  // A CLI beside a running server must not mark the server's answers in progress as interrupted.
  const db = await openDatabase(config, { recoverStreaming: false });
  try {
    const auth = createAuth({
      db,
      secret: loadAuthSecret(dataDir),
      baseURL: 'http://127.0.0.1',
      logLevel: 'error',
    });
    process.stdout.write(
      `${await run(auth, argv, { db, workspaceDir: config.execution.workspace.dir, installRoot: config.install.root })}\n`,
    );
    return 0;
  } finally {
    await closeDatabase(db);
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError || (error instanceof TypeError && 'code' in error)) {
      process.stderr.write(`user: ${error.message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else if (error instanceof UserAdminError || error instanceof ConfigError) {
      process.stderr.write(`user: ${error.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`user: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    }
  },
);
