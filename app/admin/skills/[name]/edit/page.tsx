/** /admin/skills/[name]/edit: the SKILL.md editor and the editor of its other text files, for skills in a writable root (the install root). */
import fs from 'node:fs';
import path from 'node:path';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { AdminHeader } from '@/components/admin/admin-header';
import { FileEditor } from '@/components/authoring/file-editor';
import { SkillEditor } from '@/components/authoring/skill-editor';
import { getApp } from '@/server/app';
import { checkDraft, writableRootOf } from '@/server/authoring/authoring';
import { getExposurePolicy } from '@/server/security/exposure-policy';
import { listSkillFiles } from '@/server/skills/resources/files';
import { requireAdmin } from '../../../_lib/guard';

export const dynamic = 'force-dynamic';

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export default async function EditSkillPage({ params }: { params: Promise<{ name: string }> }) {
  const { name: rawName } = await params;
  const name = decodeName(rawName);
  await requireAdmin(`/admin/skills/${rawName}/edit`);
  const app = await getApp();
  const skill = await app.registry.get(name);
  if (!skill) notFound();
  const loggedIn = getExposurePolicy().exposed;
  const writable = writableRootOf(app.config, skill.dir) !== null;
  const text = writable ? await fs.promises.readFile(skill.file, 'utf8') : '';
  const check = writable ? await checkDraft(text, path.basename(skill.dir), app.config.limits) : null;
  const others = writable
    ? (await listSkillFiles(skill.dir)).files.map((f) => f.path).filter((f) => !/^skill\.md$/i.test(f))
    : [];

  return (
    <>
      <AdminHeader title={`Edit ${skill.name}`} loggedIn={loggedIn} />
      <main className="admin-main" data-testid="skill-edit" data-skill={skill.name}>
        <p>
          <Link href={`/admin/skills/${encodeURIComponent(skill.name)}`} className="small">
            ← {skill.name}
          </Link>
        </p>
        <section className="card">
          {check ? (
            <SkillEditor name={skill.name} initialText={text} initialCheck={check} />
          ) : (
            <p data-testid="editor-readonly">
              This skill is not in a writable root. Only skills in the install root can be edited here; edit this one
              where it lives.
            </p>
          )}
        </section>
        {check ? (
          <section className="card">
            <FileEditor name={skill.name} initialFiles={others} />
          </section>
        ) : null}
      </main>
    </>
  );
}
