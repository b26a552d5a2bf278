/** /admin/skills/[name]: one skill's frontmatter, rendered instructions, files and diagnostics. */
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { AdminHeader } from '@/components/admin/admin-header';
import { ScopeLabel, SeverityBadge } from '@/components/admin/badges';
import { FileTree } from '@/components/admin/file-tree';
import { OutputEvals } from '@/components/authoring/output-evals';
import { TriggerCheck } from '@/components/authoring/trigger-check';
import { Markdown } from '@/components/chat/markdown';
import { loadAdminSkill } from '@/server/admin/skill-detail';
import { getApp } from '@/server/app';
import { writableRootOf } from '@/server/authoring/authoring';
import { lastDescribe } from '@/server/evals/describe-admin';
import { storedOutputEvals } from '@/server/evals/output-runs';
import { readQueriesFile } from '@/server/evals/queries-file';
import { storedTriggerChecks } from '@/server/evals/trigger-admin';
import { getExposurePolicy } from '@/server/security/exposure-policy';
import { requireAdmin } from '../../_lib/guard';
import './skill-detail.css';

export const dynamic = 'force-dynamic';

/** Route params may arrive still percent-encoded (`%C3%A4rger`); a stray `%` must not throw. */
function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export default async function AdminSkillPage({
  params,
  searchParams,
}: {
  params: Promise<{ name: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { name: rawName } = await params;
  const name = decodeName(rawName);
  await requireAdmin(`/admin/skills/${rawName}`);
  const absolute = (await searchParams).paths === 'absolute';
  const skill = await loadAdminSkill(await getApp(), name, { paths: absolute ? 'absolute' : 'display' });
  if (!skill) notFound();
  const loggedIn = getExposurePolicy().exposed;
  const app = await getApp();
  const loaded = await app.registry.get(skill.name);
  const editable = loaded ? writableRootOf(app.config, loaded.dir) !== null : false;
  const carried = loaded ? await readQueriesFile(loaded) : { queries: [], problems: [] };

  return (
    <>
      <AdminHeader title={skill.name} loggedIn={loggedIn} />
      <main className="admin-main" data-testid="skill-detail" data-skill={skill.name}>
        <p>
          <Link href="/admin" className="small">
            ← All skills
          </Link>
        </p>
        <section className="card">
          <h2>{skill.name}</h2>
          <p className="description">{skill.description}</p>
          <dl className="facts">
            <dt>Location</dt>
            <dd>
              <code className="path" data-testid="skill-location">
                {skill.location}
              </code>
            </dd>
            <dt>Source root</dt>
            <dd>
              <code className="path">{skill.root}</code> <ScopeLabel scope={skill.scope} />
            </dd>
            <dt>Skill file</dt>
            <dd>
              <code className="path">{skill.skillFile}</code>
            </dd>
            {skill.instructionsTokens !== null && (
              <>
                <dt>Instructions</dt>
                <dd>{skill.instructionsTokens} tokens when activated</dd>
              </>
            )}
          </dl>
          <p className="small">
            {/* A plain download link: GET, so no Origin check is needed, and the admin session cookie is sent. */}
            <a href={`/api/admin/skills/${encodeURIComponent(skill.name)}/export`} download data-testid="skill-export">
              Export as .skill
            </a>
            {editable ? (
              <>
                {' · '}
                <Link href={`/admin/skills/${encodeURIComponent(skill.name)}/edit`} data-testid="skill-edit-link">
                  Edit SKILL.md
                </Link>
              </>
            ) : null}
          </p>
        </section>

        <section className="card" data-testid="skill-diagnostics">
          <h2>Diagnostics</h2>
          {skill.diagnostics.length === 0 ? (
            <p className="empty">None: this skill follows the spec.</p>
          ) : (
            <ul className="plain-list">
              {skill.diagnostics.map((d, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: diagnostics have no id and never reorder here
                <li key={i} data-testid="skill-diagnostic" data-code={d.code}>
                  <SeverityBadge severity={d.severity} /> <span className="message">{d.message}</span>
                  {d.hint && <div className="muted small">{d.hint}</div>}
                </li>
              ))}
            </ul>
          )}
        </section>

        <div className="columns columns--detail">
          <section className="card">
            <h2>Frontmatter</h2>
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls, so a keyboard must reach it (axe: scrollable-region-focusable) */}
            <pre className="code-block" data-testid="skill-frontmatter" tabIndex={0}>
              {skill.frontmatterText ?? JSON.stringify(skill.frontmatter, null, 2)}
            </pre>
            <h2>Files</h2>
            <FileTree files={skill.files} />
            {skill.filesCapped && <p className="muted small">More files exist than are listed.</p>}
          </section>

          <section className="card" data-testid="skill-instructions">
            <h2>Instructions</h2>
            {skill.instructions !== null ? (
              <div className="instructions">
                <Markdown text={skill.instructions} streaming={false} />
              </div>
            ) : (
              <p className="error">{skill.instructionsError}</p>
            )}
          </section>
        </div>
        <section className="card" data-testid="skill-trigger-check" aria-labelledby="trigger-h">
          <h2 id="trigger-h">Trigger evals</h2>
          <p className="small muted">
            Queries run against the configured model, with this skill among every installed one, and the matcher: how
            often each one activates this skill, and which skill won when it did not.
          </p>
          <TriggerCheck
            name={skill.name}
            initial={await storedTriggerChecks(app, skill.name)}
            carried={{ count: carried.queries.length, problems: carried.problems }}
            lastDescribe={await lastDescribe(app, skill.name)}
            editable={editable}
          />
        </section>

        <section className="card" data-testid="skill-output-evals">
          <h2>Output evals</h2>
          <p className="small muted">
            The cases in <code>evals/evals.json</code>, each run in a scratch chat with this skill and without it;
            failed runs keep their chat.
          </p>
          <OutputEvals name={skill.name} initial={await storedOutputEvals(app, skill.name)} />
        </section>
      </main>
    </>
  );
}
