/**
 * The request side of account management: validates the JSON bodies of `/api/admin/users/**` and `/api/setup`,
 * runs the operation in `users.ts` / `first-admin.ts`, and words their expected failures as `AppError`s (4xx JSON).
 */

import type { UserUsage } from '../db/activations';
import { AppError } from '../errors';
import { deleteAccount } from './account-data';
import type { Auth } from './auth';
import { createFirstAdmin, SetupError } from './first-admin';
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
  type UserSummary,
} from './users';

const USER_ERRORS = {
  not_found: 'not_found:user',
  exists: 'conflict:user',
  invalid: 'bad_request:user',
  last_admin: 'conflict:last_admin',
} as const;

/** An expected refusal as the request's error; anything else is rethrown (a 500 with the details in the log). */
export function accountError(error: unknown): never {
  if (error instanceof UserAdminError) throw new AppError(USER_ERRORS[error.code], error.message);
  if (error instanceof SetupError) {
    throw new AppError(error.code === 'setup_done' ? 'conflict:setup_done' : 'forbidden:setup_token', error.message);
  }
  throw error;
}

function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

function text(body: unknown, name: string, label: string, max = 200): string {
  const value = field(body, name);
  if (typeof value !== 'string' || value.trim() === '') throw new AppError('bad_request:input', `Enter ${label}`);
  if (value.length > max) throw new AppError('bad_request:input', `${label} is too long`);
  return value;
}

function optionalText(body: unknown, name: string): string | undefined {
  const value = field(body, name);
  return typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 200) : undefined;
}

function role(value: unknown): Role {
  if (!ROLE_NAMES.includes(value as Role)) throw new AppError('bad_request:input', 'The role is admin or member');
  return value as Role;
}

export interface UserRow extends Omit<UserSummary, 'createdAt'> {
  createdAt: string;
  /** Skill activations and script runs in this person's chats (0 for a new account). */
  activations: number;
  scriptRuns: number;
}

const row = (u: UserSummary, usage?: UserUsage): UserRow => ({
  ...u,
  createdAt: u.createdAt.toISOString(),
  activations: usage?.activations ?? 0,
  scriptRuns: usage?.scriptRuns ?? 0,
});

/** The accounts with their usage (`usageByUser` of server/db), for /admin. */
export async function listUserRows(auth: Auth, usage: readonly UserUsage[] = []): Promise<UserRow[]> {
  const byId = new Map(usage.map((u) => [u.userId, u]));
  return (await listUsers(auth)).map((u) => row(u, byId.get(u.id)));
}

export async function createUserFromBody(auth: Auth, body: unknown): Promise<UserRow> {
  const input = {
    email: text(body, 'email', 'an email address'),
    password: text(body, 'password', 'a password'),
    role: role(field(body, 'role') ?? 'member'),
    name: optionalText(body, 'name'),
  };
  return row(await addUser(auth, input).catch(accountError));
}

/** One change per request: `{ disabled }`, `{ role }` or `{ password }`. */
export async function updateUserFromBody(auth: Auth, email: string, body: unknown): Promise<void> {
  try {
    const disabled = field(body, 'disabled');
    if (typeof disabled === 'boolean') {
      await (disabled ? disableUser(auth, email) : enableUser(auth, email));
    } else if (field(body, 'role') !== undefined) {
      await setRole(auth, email, role(field(body, 'role')));
    } else if (field(body, 'password') !== undefined) {
      await setPassword(auth, email, text(body, 'password', 'a password'));
    } else {
      throw new AppError('bad_request:input', 'Send one of disabled, role or password');
    }
  } catch (error) {
    accountError(error);
  }
}

/** Deletes the account and everything that was theirs (account-data.ts). */
export async function deleteUserByEmail(
  auth: Auth,
  email: string,
  data: Parameters<typeof deleteAccount>[2],
): Promise<{ filesLeft: number }> {
  return deleteAccount(auth, email, data).catch(accountError);
}

export async function setupFromBody(auth: Auth, body: unknown): Promise<UserRow> {
  const input = {
    token: text(body, 'token', 'the setup token', 400).trim(),
    email: text(body, 'email', 'an email address'),
    password: text(body, 'password', 'a password'),
    name: optionalText(body, 'name'),
  };
  return row(await createFirstAdmin(auth, input).catch(accountError));
}
