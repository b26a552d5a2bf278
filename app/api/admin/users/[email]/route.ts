/**
 * PATCH /api/admin/users/:email: one change (`{ disabled }`, `{ role }` or `{ password }`). DELETE: removes the
 * account with its chats and their files. Admins only; the last enabled admin can be neither disabled, demoted nor deleted.
 */

import { requireAdmin } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { deleteUserByEmail, updateUserFromBody } from '@/server/auth/admin-api';
import { readJsonBody } from '@/server/chat/request';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ email: string }> };

export const PATCH = handle(async (request: Request, { params }: Params) => {
  await requireAdmin(request);
  await updateUserFromBody((await getApp()).auth, (await params).email, await readJsonBody(request));
  return json({ ok: true });
});

export const DELETE = handle(async (request: Request, { params }: Params) => {
  await requireAdmin(request);
  const app = await getApp();
  const { filesLeft } = await deleteUserByEmail(app.auth, (await params).email, {
    db: app.db,
    turns: app.turns,
    workspaceDir: app.config.execution.workspace.dir,
    installRoot: app.config.install.root,
  });
  if (filesLeft === 0) return json({ ok: true });
  const error = `The account was deleted, but the files of ${filesLeft} of its chats could not all be removed yet: they are retried at the next deletion`;
  return json({ ok: true, error, code: 'files_left:account' }, { status: 202 });
});
