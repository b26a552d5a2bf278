/**
 * POST /api/setup: the first admin, for the holder of the setup token printed on the server's console.
 * `takeOverLocalChats: true` also gives the new admin the chats made while the server was loopback-only (they belong
 * to the built-in local person, whom nobody can sign in as); the setup page sends it, checked by default.
 */

import { getApp } from '@/server/app';
import { setupFromBody } from '@/server/auth/admin-api';
import { readJsonBody } from '@/server/chat/request';
import { transferUserData } from '@/server/db/chats';
import { LOCAL_USER_ID } from '@/server/db/local-user';
import { AppError } from '@/server/errors';
import { handle, json } from '@/server/http';
import { getExposurePolicy } from '@/server/security/exposure-policy';

export const dynamic = 'force-dynamic';

export const POST = handle(async (request: Request) => {
  if (!getExposurePolicy().exposed) {
    throw new AppError('conflict:setup_done', 'This server is loopback-only: it has no accounts to set up');
  }
  const body = await readJsonBody(request);
  const takeOver = typeof body === 'object' && body !== null ? Reflect.get(body, 'takeOverLocalChats') : undefined;
  if (takeOver !== undefined && typeof takeOver !== 'boolean') {
    throw new AppError('bad_request:setup', '`takeOverLocalChats` must be true or false');
  }
  const app = await getApp();
  const user = await setupFromBody(app.auth, body);
  // After the account exists (a refused setup moves nothing); the token is spent, so this runs at most once.
  const tookOver = takeOver === true ? await transferUserData(LOCAL_USER_ID, user.id, app.db) : 0;
  return json({ user, tookOver }, { status: 201 });
});
