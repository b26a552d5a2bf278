/**
 * First run in exposed mode: no admin exists, so the server issues a setup token (printed on its console) and the
 * setup page turns token + email + password into the first admin. `npm run user -- add EMAIL --role admin` is the
 * other way in. Both work on SQLite and PostgreSQL through better-auth's adapter.
 */

import type { Auth } from './auth';
import { createSetupToken, SETUP_IDENTIFIER_PREFIX, SETUP_TOKEN_TTL_MS, setupTokenIdentifier } from './setup-token';
import { addUser, countAdmins, UserAdminError, type UserSummary } from './users';

export class SetupError extends Error {
  constructor(
    readonly code: 'setup_done' | 'bad_token',
    message: string,
  ) {
    super(message);
    this.name = 'SetupError';
  }
}

/** Whether the setup page should be offered: no enabled admin yet. */
export async function needsFirstAdmin(auth: Auth): Promise<boolean> {
  return (await countAdmins(auth)) === 0;
}

/**
 * A new setup token, replacing any earlier one. Returns the token to print once; only its hash is stored.
 * Null when an admin exists (nothing to set up).
 */
export async function issueSetupToken(
  auth: Auth,
  now = new Date(),
  ttlMs = SETUP_TOKEN_TTL_MS,
): Promise<string | null> {
  if (!(await needsFirstAdmin(auth))) return null;
  const ctx = await auth.$context;
  await ctx.adapter.deleteMany({
    model: 'verification',
    where: [{ field: 'identifier', operator: 'starts_with', value: SETUP_IDENTIFIER_PREFIX }],
  });
  const token = createSetupToken();
  const identifier = setupTokenIdentifier(token);
  if (!identifier) throw new Error('setup token has an unexpected shape');
  await ctx.internalAdapter.createVerificationValue({
    identifier,
    value: 'first-admin',
    expiresAt: new Date(now.getTime() + ttlMs),
  });
  return token;
}

/**
 * Creates the first admin for the holder of the setup token. The account's input is checked before the token is
 * spent, so a too-short password does not burn it; the token is consumed atomically, so of two simultaneous
 * attempts exactly one creates an admin.
 */
export async function createFirstAdmin(
  auth: Auth,
  input: { token: string; email: string; password: string; name?: string },
): Promise<UserSummary> {
  if (!(await needsFirstAdmin(auth))) {
    throw new SetupError('setup_done', 'An admin exists already: sign in, or ask an admin for an account');
  }
  if (input.password.length < 8) throw new UserAdminError('invalid', 'The password must be at least 8 characters');
  const identifier = setupTokenIdentifier(input.token);
  const ctx = await auth.$context;
  // Expired rows are deleted and reported as null too.
  const consumed = identifier ? await ctx.internalAdapter.consumeVerificationValue(identifier) : null;
  if (!consumed) {
    throw new SetupError(
      'bad_token',
      'Wrong, used or expired setup token: copy it again from the server console, or restart the server for a new one',
    );
  }
  return addUser(auth, { email: input.email, password: input.password, role: 'admin', name: input.name });
}
