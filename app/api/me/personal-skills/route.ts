/**
 * GET /api/me/personal-skills: the person's own skills. POST (multipart, as the admin's install: `file` an archive,
 * or `files` + `paths` a folder; `mode`): installs one for them alone, through the one install path. 201
 * `{ skill, ... }`, 200 for a preview, 409 when a shared skill has the name, 403 when the operator turned personal
 * skills off, or a 4xx `{ error, code, problems }`.
 */
import { currentUserId } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { AppError } from '@/server/errors';
import { handle, json } from '@/server/http';
import { installErrorResponse } from '@/server/install/admin';
import { installPersonalSkill, listPersonalSkills, personalSkillsOn } from '@/server/install/personal';
import { InstallError } from '@/server/install/problems';
import { uploadedSource } from '@/server/install/upload';
import { personalSkillsRoot } from '@/server/skills/personal-root';

export const dynamic = 'force-dynamic';

export const GET = handle(async (request: Request) => {
  const userId = await currentUserId(request);
  const app = await getApp();
  return json({ enabled: personalSkillsOn(app.config), skills: await listPersonalSkills(app, userId) });
});

export const POST = handle(async (request: Request) => {
  const userId = await currentUserId(request);
  const app = await getApp();
  if (!(request.headers.get('content-type') ?? '').startsWith('multipart/form-data')) {
    throw new AppError('unsupported_media_type:install', 'Send the skill as multipart: `file`, or a folder as `files`');
  }
  const { source, mode } = await uploadedSource(request);
  try {
    const { name, description, ...rest } = await installPersonalSkill(app, userId, source, mode);
    return json({ skill: { name, description }, ...rest }, { status: rest.applied ? 201 : 200 });
  } catch (error) {
    if (!(error instanceof InstallError)) throw error;
    const root = personalSkillsRoot(app.config.install.root, userId);
    return installErrorResponse(error, app, { root, label: '<your skills>' });
  }
});
