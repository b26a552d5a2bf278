/**
 * Start-up on an exposed server with no admin yet: a fresh setup token (replacing any earlier one), printed with
 * the page to use it on. Only its hash is stored; it works once.
 */
import type { Auth } from './auth';
import { issueSetupToken } from './first-admin';

export async function announceSetup(auth: Auth, log: (line: string) => void = console.log): Promise<string | null> {
  const token = await issueSetupToken(auth);
  if (!token) return null;
  const origin = process.env.__NEXT_PRIVATE_ORIGIN ?? '';
  log('[skillchat] no admin account yet. Create the first one at');
  log(`[skillchat]   ${origin}/setup`);
  log(`[skillchat] with this setup token (valid once): ${token}`);
  log('[skillchat] or on this machine: npm run user -- add EMAIL --role admin');
  return token;
}
