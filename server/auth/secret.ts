/**
 * The secret that signs session cookies: `SKILLCHAT_AUTH_SECRET`, else a random one kept in `auth-secret` beside
 * the SQLite database (created on first use, mode 0600). Several instances must share it: with PostgreSQL set
 * `SKILLCHAT_AUTH_SECRET` on each, since their data folders differ.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const AUTH_SECRET_FILE = 'auth-secret';

export function loadAuthSecret(
  dataDir: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const given = env.SKILLCHAT_AUTH_SECRET?.trim();
  if (given) {
    if (given.length < 32) throw new Error('SKILLCHAT_AUTH_SECRET must be at least 32 characters');
    return given;
  }
  const file = path.join(dataDir, AUTH_SECRET_FILE);
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  try {
    // `wx`: if another process created it meanwhile, keep theirs.
    fs.writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return fs.readFileSync(file, 'utf8').trim();
    throw error;
  }
}
