/**
 * Deleting a person: the account (better-auth, sessions included), then everything that was theirs: chats with
 * their messages and activations, and each chat's workspace folder (uploads and script outputs). Audit rows
 * (script runs, permission decisions) stay, without the person. The one path for `/admin` and `npm run user`.
 */
import type { Database } from '../db';
import { deleteUserData } from '../db/chats';
import { deleteWorkspace } from '../workspace/workspace';
import type { Auth } from './auth';
import { deleteUser } from './users';

export async function deleteAccount(
  auth: Auth,
  email: string,
  data: { db: Database; workspaceDir: string },
): Promise<{ chats: number }> {
  const userId = await deleteUser(auth, email);
  const chatIds = await deleteUserData(userId, data.db);
  for (const id of chatIds) await deleteWorkspace(data.workspaceDir, id);
  return { chats: chatIds.length };
}
