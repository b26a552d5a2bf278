/**
 * Deleting a person: the account (better-auth, sessions included), then their running answers are stopped (here or
 * on the instance running them, and waited for, so nothing is written to a chat being deleted), then everything that
 * was theirs: chats with their messages and activations, and each chat's workspace folder (uploads and script
 * outputs), and their personal skills. Audit rows (script runs, permission decisions) stay, without the person. The one path for `/admin` and
 * `npm run user`.
 */

import type { RunningTurns } from '../chat/running/active-turns';
import { turnLeasesFor } from '../chat/running/leases';
import { stopChat } from '../chat/turn/stop';
import type { Database } from '../db';
import { deleteUserData, listChats } from '../db/chats';
import { deletePersonalSkills } from '../install/personal';
import { deleteWorkspace } from '../workspace/workspace';
import type { Auth } from './auth';
import { deleteUser } from './users';

export async function deleteAccount(
  auth: Auth,
  email: string,
  /** `turns`: the app's running turns (`app.turns`); the CLI (`npm run user`) runs none, so it passes none. */
  data: { db: Database; workspaceDir: string; installRoot?: string; turns?: Pick<RunningTurns, 'stop' | 'wait'> },
): Promise<{ chats: number; filesLeft: number }> {
  const userId = await deleteUser(auth, email);
  const leases = turnLeasesFor(data.db);
  const theirs = await listChats({ userId }, data.db);
  await Promise.all(theirs.map((chat) => stopChat(chat.id, { turns: data.turns, leases, wait: true })));
  const chatIds = await deleteUserData(userId, data.db);
  let filesLeft = 0;
  for (const id of chatIds) if (!(await deleteWorkspace(data.workspaceDir, id))) filesLeft++;
  // Their own skills (server/install/personal.ts), beside the install root.
  if (data.installRoot) await deletePersonalSkills(data.installRoot, userId);
  return { chats: chatIds.length, filesLeft };
}
