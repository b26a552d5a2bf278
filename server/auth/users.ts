/**
 * Account management by the operator: the `npm run user` CLI now, the admin pages' server code later. These run
 * with the server's trust (no session), through better-auth's own operations, so passwords are hashed by the
 * library and sessions are revoked the way its admin plugin does. Expected problems are `UserAdminError`s with a
 * code and a message fit for a person; the last enabled admin can be neither disabled, demoted nor deleted.
 */
import { APIError } from 'better-auth/api';
import type { Auth } from './auth';

export const ROLE_NAMES = ['admin', 'member'] as const;
export type Role = (typeof ROLE_NAMES)[number];

export interface UserSummary {
  id: string;
  email: string;
  name: string;
  role: string;
  disabled: boolean;
  createdAt: Date;
}

export class UserAdminError extends Error {
  constructor(
    readonly code: 'not_found' | 'exists' | 'invalid' | 'last_admin',
    message: string,
  ) {
    super(message);
    this.name = 'UserAdminError';
  }
}

interface UserFields {
  id: string;
  email: string;
  name: string;
  role?: string | null;
  banned?: boolean | null;
  createdAt: Date;
}

const summary = (u: UserFields): UserSummary => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role ?? 'member',
  disabled: u.banned === true,
  createdAt: u.createdAt,
});

async function findUser(auth: Auth, email: string): Promise<UserFields> {
  const ctx = await auth.$context;
  const found = await ctx.internalAdapter.findUserByEmail(email.trim().toLowerCase());
  if (!found) throw new UserAdminError('not_found', `No user with the email ${email}`);
  return found.user as UserFields;
}

function checkPassword(password: string): void {
  if (password.length < 8) throw new UserAdminError('invalid', 'The password must be at least 8 characters');
  if (password.length > 128) throw new UserAdminError('invalid', 'The password must be at most 128 characters');
}

async function assertAnotherAdmin(auth: Auth, user: UserFields): Promise<void> {
  if (user.role !== 'admin' || user.banned) return;
  const others = (await listUsers(auth)).filter((u) => u.role === 'admin' && !u.disabled && u.id !== user.id);
  if (others.length === 0) {
    throw new UserAdminError('last_admin', `${user.email} is the last enabled admin: add another admin first`);
  }
}

export async function addUser(
  auth: Auth,
  input: { email: string; password: string; role: Role; name?: string },
): Promise<UserSummary> {
  checkPassword(input.password);
  const email = input.email.trim().toLowerCase();
  try {
    // No headers: a server call, which the admin plugin allows without a session.
    const { user } = await auth.api.createUser({
      body: { email, password: input.password, name: input.name ?? email.split('@')[0] ?? email, role: input.role },
    });
    return summary(user as UserFields);
  } catch (error) {
    if (error instanceof APIError) {
      const exists = error.body?.code === 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL';
      throw new UserAdminError(
        exists ? 'exists' : 'invalid',
        exists ? `A user with the email ${email} exists` : error.message,
      );
    }
    throw error;
  }
}

/** Sets a new password and signs the user out everywhere. */
export async function setPassword(auth: Auth, email: string, password: string): Promise<void> {
  checkPassword(password);
  const user = await findUser(auth, email);
  const ctx = await auth.$context;
  const hash = await ctx.password.hash(password);
  if (await ctx.internalAdapter.findCredentialAccount(user.id)) {
    await ctx.internalAdapter.updatePassword(user.id, hash);
  } else {
    await ctx.internalAdapter.createAccount({
      userId: user.id,
      providerId: 'credential',
      accountId: user.id,
      password: hash,
    });
  }
  await ctx.internalAdapter.deleteUserSessions(user.id);
}

/** Disabled users cannot sign in; their sessions end now. */
export async function disableUser(auth: Auth, email: string, reason = 'Disabled by an admin'): Promise<void> {
  const user = await findUser(auth, email);
  await assertAnotherAdmin(auth, user);
  const ctx = await auth.$context;
  await ctx.internalAdapter.updateUser(user.id, { banned: true, banReason: reason, banExpires: null });
  await ctx.internalAdapter.deleteUserSessions(user.id);
}

export async function enableUser(auth: Auth, email: string): Promise<void> {
  const user = await findUser(auth, email);
  const ctx = await auth.$context;
  await ctx.internalAdapter.updateUser(user.id, { banned: false, banReason: null, banExpires: null });
}

export async function setRole(auth: Auth, email: string, role: Role): Promise<void> {
  const user = await findUser(auth, email);
  if (role !== 'admin') await assertAnotherAdmin(auth, user);
  const ctx = await auth.$context;
  await ctx.internalAdapter.updateUser(user.id, { role });
}

/** Deletes the account and its sessions; returns its id. Its chats go with `deleteAccount` (account-data.ts). */
export async function deleteUser(auth: Auth, email: string): Promise<string> {
  const user = await findUser(auth, email);
  await assertAnotherAdmin(auth, user);
  const ctx = await auth.$context;
  await ctx.internalAdapter.deleteUser(user.id);
  return user.id;
}

export async function listUsers(auth: Auth): Promise<UserSummary[]> {
  const ctx = await auth.$context;
  const users = (await ctx.internalAdapter.listUsers(undefined, undefined, {
    field: 'email',
    direction: 'asc',
  })) as UserFields[];
  return users.map(summary);
}

export async function countAdmins(auth: Auth): Promise<number> {
  return (await listUsers(auth)).filter((u) => u.role === 'admin' && !u.disabled).length;
}
