/**
 * Personal access tokens: how a program (an MCP client such as Claude Code or Codex, an installer reading the
 * well-known index) acts for a person on an exposed server, sent as `Authorization: Bearer sc_...`.
 *
 * A token is `sc_` + 32 random bytes in base64url, shown once when it is made; only its SHA-256 (hex) is stored and
 * a request's token is found by looking that hash up, so the comparison is of hashes (nothing about the token leaks
 * through timing) and a stolen database holds no usable token. A token acts for its person with that person's
 * rights of the moment: a disabled or deleted account's tokens stop working, and revoking is immediate.
 *
 * Why our own module and not better-auth's `@better-auth/api-key` plugin: see the README's "Libraries we chose".
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  type Database,
  findPersonalToken,
  insertPersonalToken,
  listPersonalTokens,
  revokePersonalToken,
  tokenOwner,
  touchPersonalToken,
} from '../db';
import { AppError } from '../errors';
import { sha256Hex } from '../skills/digests';
import type { CurrentUser } from './roles';

export const TOKEN_PREFIX = 'sc_';
/** base64url of 32 bytes is 43 characters. */
const TOKEN_PATTERN = /^sc_[A-Za-z0-9_-]{43}$/;
const MAX_NAME = 100;
/** `last_used_at` is written at most this often per token: a busy client must not write on every request. */
const TOUCH_EVERY_MS = 60_000;

export interface PersonalTokenView {
  id: string;
  name: string;
  /** The token's last characters, to tell tokens apart (`sc_…k3Qw`). */
  hint: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export function tokenHash(token: string): string {
  return sha256Hex(token);
}

/** A new token and what is stored of it. */
export function newPersonalToken(): { token: string; hash: string; hint: string } {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { token, hash: tokenHash(token), hint: `${TOKEN_PREFIX}…${token.slice(-4)}` };
}

/** The token of an `Authorization: Bearer <token>` header, or null when there is no bearer credential. */
export function bearerToken(authorization: string | null): string | null {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
  return match ? match[1]! : null;
}

function view(row: Awaited<ReturnType<typeof listPersonalTokens>>[number]): PersonalTokenView {
  return {
    id: row.id,
    name: row.name,
    hint: row.hint,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/** Makes a token for `userId`; the only time the token itself is returned. */
export async function createPersonalToken(
  db: Database,
  userId: string,
  name: string,
): Promise<{ token: string; created: PersonalTokenView }> {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > MAX_NAME || /[\x00-\x1f\x7f]/.test(trimmed)) {
    throw new AppError('bad_request:token_name', `Give the token a name of 1-${MAX_NAME} characters`);
  }
  const { token, hash, hint } = newPersonalToken();
  const row = { id: randomUUID(), userId, name: trimmed, tokenHash: hash, hint, createdAt: new Date() };
  await insertPersonalToken(row, db);
  return { token, created: view({ ...row, lastUsedAt: null, revokedAt: null }) };
}

export async function listTokens(db: Database, userId: string): Promise<PersonalTokenView[]> {
  return (await listPersonalTokens(userId, db)).map(view);
}

export async function revokeToken(db: Database, userId: string, id: string): Promise<void> {
  if (!(await revokePersonalToken(userId, id, db))) {
    throw new AppError('not_found:token', 'No such token (or it was already revoked)');
  }
}

/** The person a token acts for, or null: unknown, revoked, or its account is disabled or gone. */
export async function personForToken(db: Database, token: string): Promise<CurrentUser | null> {
  if (!TOKEN_PATTERN.test(token)) return null;
  const row = await findPersonalToken(tokenHash(token), db);
  if (!row) return null;
  const owner = await tokenOwner(row.userId, db);
  if (!owner || owner.banned === true) return null;
  const now = new Date();
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > TOUCH_EVERY_MS) {
    await touchPersonalToken(row.id, now, db);
  }
  return { id: owner.id, email: owner.email, role: owner.role === 'admin' ? 'admin' : 'member' };
}
