/** POST /api/setup: the first admin, for the holder of the setup token printed on the server's console. */

import { getApp } from '@/server/app';
import { setupFromBody } from '@/server/auth/admin-api';
import { readJsonBody } from '@/server/chat/request';
import { AppError } from '@/server/errors';
import { handle, json } from '@/server/http';
import { getAccessPolicy } from '@/server/security/runtime';

export const dynamic = 'force-dynamic';

export const POST = handle(async (request: Request) => {
  if (!getAccessPolicy().exposed) {
    throw new AppError('conflict:setup_done', 'This server is loopback-only: it has no accounts to set up');
  }
  const user = await setupFromBody((await getApp()).auth, await readJsonBody(request));
  return json({ user }, { status: 201 });
});
