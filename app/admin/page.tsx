/**
 * /admin: roots, skills (with their mode and permission), problems, activations, permissions (grants, approval
 * decisions, script runs) and the catalog, from the registry's current scan. Server-rendered on every request; the
 * Rescan and Revoke buttons and the mode selects change state on the server and re-render.
 */
import Link from 'next/link';
import { ActivationCounts, ActivationLog } from '@/components/admin/activations';
import { AdminHeader } from '@/components/admin/admin-header';
import { InstallSkill } from '@/components/admin/install-skill';
import { InstalledSkills } from '@/components/admin/installed-skills';
import { LocalTime } from '@/components/admin/local-time';
import { McpServers } from '@/components/admin/mcp-servers';
import { ModelsSection } from '@/components/admin/models-section';
import { NetworkSection } from '@/components/admin/network';
import { DecisionLog, GrantsTable, ScriptRunLog } from '@/components/admin/permissions';
import { CollisionsList, NotLoadedList, ProblemsList } from '@/components/admin/problems';
import { RescanButton } from '@/components/admin/rescan-button';
import { RootsTable } from '@/components/admin/roots-table';
import { SandboxStatusCard } from '@/components/admin/sandbox-status';
import { SecretsSection } from '@/components/admin/secrets-section';
import { SkillsTable } from '@/components/admin/skills-table';
import { UsersSection } from '@/components/admin/users-section';
import { NewSkill } from '@/components/authoring/new-skill';
import { loadAdminModels } from '@/server/admin/models';
import {
  EGRESS_PAGE_SIZE,
  type EgressFilters,
  egressQueryString,
  loadAdminNetwork,
  parseEgressQuery,
} from '@/server/admin/network';
import { loadAdminOverview } from '@/server/admin/overview';
import { createPathDisplay } from '@/server/admin/paths';
import { getApp } from '@/server/app';
import { listUserRows } from '@/server/auth/admin-api';
import { usageByUser } from '@/server/db/activations';
import { listInstalled } from '@/server/install/install';
import { countPersonalSkills, personalSkillsOn } from '@/server/install/personal';
import { loadSandboxStatus } from '@/server/sandbox/status';
import { adminSecretViews } from '@/server/secrets/manage';
import { getExposurePolicy } from '@/server/security/exposure-policy';
import { workspaceUsage } from '@/server/workspace/quota';
import { pageUser } from '../_lib/page-user';
import { requireAdmin } from './_lib/guard';

export const dynamic = 'force-dynamic';

function countOf(n: number, noun: string): string {
  return `${n} ${n === 1 ? noun : `${noun}s`}`;
}

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** The egress record's filters from the page's query; a bad one shows the whole record with the reason. */
function egressFilters(params: Record<string, string | string[] | undefined>): {
  filters: EgressFilters;
  problem: string | null;
} {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) query.append(key, v);
  }
  try {
    return { filters: parseEgressQuery(query, ['paths']), problem: null };
  } catch (error) {
    return { filters: { page: 1 }, problem: (error as Error).message };
  }
}

/** "3 skills, 2 people": what people installed for themselves, counted (never their contents). */
function ownSkillsLine(counts: ReadonlyMap<string, number>): string {
  const skills = [...counts.values()].reduce((a, b) => a + b, 0);
  const people = [...counts.values()].filter((n) => n > 0).length;
  return `${skills} ${skills === 1 ? 'skill' : 'skills'} installed by ${people} ${people === 1 ? 'person' : 'people'}`;
}

export default async function AdminPage({ searchParams }: { searchParams: SearchParams }) {
  await requireAdmin('/admin');
  const params = await searchParams;
  const absolute = params.paths === 'absolute';
  const app = await getApp();
  const overview = await loadAdminOverview(app, { paths: absolute ? 'absolute' : 'display' });
  const installRoot = app.config.install.root;
  const installed = await listInstalled(installRoot);
  const installRootShown = createPathDisplay(app.config, absolute ? 'absolute' : 'display').root(installRoot);
  const policy = getExposurePolicy();
  const sandbox = await loadSandboxStatus(app.config.execution, { exposed: policy.exposed });
  // Accounts are what an exposed server signs people in with; a loopback server has only its local person.
  const files = policy.exposed ? await workspaceUsage(app.config.execution.workspace.dir) : null;
  const ownSkills = await countPersonalSkills(app.config);
  const users = policy.exposed
    ? (await listUserRows(app.auth, await usageByUser(app.db))).map((u) => ({
        ...u,
        fileBytes: files?.byOwner.get(u.id) ?? 0,
        personalSkills: ownSkills.get(u.id) ?? 0,
      }))
    : null;
  const me = policy.exposed ? (await pageUser('/admin')).email : null;
  const egress = egressFilters(params);
  const network = await loadAdminNetwork(app, egress.filters, new Map(users?.map((u) => [u.id, u.email]) ?? []));
  const egressLink = (page: number) => {
    const query = egressQueryString(egress.filters, page);
    return `/admin${query ? `?${query}` : ''}#network`;
  };
  const egressPages = Math.max(1, Math.ceil(network.total / EGRESS_PAGE_SIZE));
  const exportQuery = egressQueryString({ ...egress.filters, page: 1 });
  const models = await loadAdminModels(app);
  const secrets = await adminSecretViews(app.config.egress.secrets, app.secrets, process.env);

  const errors = overview.problems.filter((p) => p.severity === 'error').length;
  const warnings = overview.problems.filter((p) => p.severity === 'warning').length;
  const loaded = overview.skills.filter((s) => s.status !== 'not-loaded').length;
  const { catalog } = overview;

  return (
    <>
      <AdminHeader title="Skills and activations" loggedIn={policy.exposed}>
        <span className="scan-info muted small" data-testid="scan-info">
          Scanned <LocalTime ms={overview.scannedAt} testId="scanned-at" /> in{' '}
          <span data-testid="scan-duration">{Math.round(overview.durationMs)} ms</span>
        </span>
        <RescanButton />
      </AdminHeader>
      <main className="admin-main" data-testid="admin-page">
        <nav className="section-nav" aria-label="Sections">
          {users && <a href="#users">Users {users.length}</a>}
          <a href="#models">Models {models.models.length}</a>
          <a href="#roots">Roots {overview.roots.length}</a>
          <a href="#skills">Skills {loaded}</a>
          <a href="#install">Install</a>
          <a href="#problems" className={errors > 0 ? 'has-errors' : warnings > 0 ? 'has-warnings' : undefined}>
            Problems {errors + warnings}
          </a>
          <a href="#activations">Activations {overview.activations.total}</a>
          <a href="#permissions">Grants {overview.permissions.grants.length}</a>
          <a href="#catalog">Catalog {catalog.tokens} tokens</a>
          <a href="#sandbox">Sandbox {sandbox.backend ?? 'none'}</a>
          <a href="#network">Network {network.skills.length}</a>
          <a href="#secrets">Secrets {secrets.length}</a>
          <a href="#mcp">MCP {overview.mcp.servers.filter((s) => s.status === 'connected').length}</a>
          <span className="section-nav__spacer" />
          <Link href={absolute ? '/admin' : '/admin?paths=absolute'} className="small" data-testid="toggle-paths">
            {absolute ? 'Show short paths' : 'Show absolute paths'}
          </Link>
        </nav>

        <p className="access muted small" data-testid="access-summary">
          {policy.exposed ? 'Reachable from the network' : 'Loopback only'}: {policy.exposure}.{' '}
          {policy.exposed
            ? 'People sign in with their accounts; this page is for admins.'
            : 'No sign-in on a loopback-only server.'}
        </p>

        {users && (
          <section className="card" id="users" aria-labelledby="users-h">
            <h2 id="users-h">Users</h2>
            <UsersSection users={users} me={me} personBytes={app.config.execution.workspace.maxPersonBytes} />
          </section>
        )}

        <section className="card" id="models" aria-labelledby="models-h" data-testid="models-section">
          <h2 id="models-h">Models</h2>
          <ModelsSection models={models.models} connections={models.connections} />
        </section>

        <SandboxStatusCard status={sandbox} showPaths={absolute} />

        {egress.problem && (
          <p className="error small" role="alert" data-testid="egress-filter-problem">
            {egress.problem}
          </p>
        )}
        <NetworkSection
          network={network}
          links={{
            export: `/api/admin/egress/export${exportQuery ? `?${exportQuery}` : ''}`,
            newer: egress.filters.page > 1 ? egressLink(egress.filters.page - 1) : null,
            older: egress.filters.page < egressPages ? egressLink(egress.filters.page + 1) : null,
          }}
        />
        <section className="card" id="secrets" aria-labelledby="secrets-h" data-testid="secrets">
          <h2 id="secrets-h">Secrets</h2>
          <SecretsSection secrets={secrets} />
        </section>

        <section className="card" id="mcp" aria-labelledby="mcp-h" data-testid="mcp-servers">
          <h2 id="mcp-h">MCP servers</h2>
          <McpServers mcp={overview.mcp} who={Object.fromEntries(users?.map((u) => [u.id, u.email]) ?? [])} />
        </section>

        <section className="card" id="roots" aria-labelledby="roots-h">
          <h2 id="roots-h">
            Roots <span className="muted small">in precedence order</span>
          </h2>
          <RootsTable roots={overview.roots} />
        </section>

        <section className="card" id="skills" aria-labelledby="skills-h">
          <h2 id="skills-h">Skills</h2>
          <SkillsTable rows={overview.skills} />
        </section>

        <section className="card" id="install" aria-labelledby="install-h">
          <h2 id="install-h">Install</h2>
          <InstallSkill root={installRootShown} />
          <p className="muted small" data-testid="personal-skills-setting">
            Personal skills (each person installs their own on /settings, seen and used by them alone):{' '}
            <strong>{personalSkillsOn(app.config) ? 'on' : 'off'}</strong> (<code>install.personalSkills</code> in the
            config file). {ownSkillsLine(ownSkills)}; the Users table counts each person&apos;s.
          </p>
          <h3>Write a new skill</h3>
          <NewSkill />
          <h3>Installed here</h3>
          <InstalledSkills names={installed} />
        </section>

        <section className="card" id="problems" aria-labelledby="problems-h" data-testid="problems">
          <h2 id="problems-h">
            Problems{' '}
            <span className="muted small">
              {errors} {errors === 1 ? 'error' : 'errors'}, {warnings} {warnings === 1 ? 'warning' : 'warnings'}
            </span>
          </h2>
          <ProblemsList problems={overview.problems} />
          <div className="columns">
            <div data-testid="not-loaded">
              <h3>Not loaded</h3>
              <NotLoadedList items={overview.notLoaded} />
            </div>
            <div data-testid="collisions">
              <h3>Name collisions</h3>
              <CollisionsList collisions={overview.collisions} />
            </div>
          </div>
        </section>

        <section className="card" id="activations" aria-labelledby="activations-h">
          <h2 id="activations-h">Activations</h2>
          <div className="stack">
            <div data-testid="activation-log">
              <h3>Log</h3>
              <ActivationLog events={overview.activations.events} total={overview.activations.total} />
            </div>
            <div data-testid="activation-counts">
              <h3>Per skill</h3>
              <ActivationCounts counts={overview.activations.bySkill} />
            </div>
          </div>
        </section>

        <section className="card" id="permissions" aria-labelledby="permissions-h" data-testid="permissions">
          <h2 id="permissions-h">Permissions</h2>
          <p className="muted small">
            Each skill&apos;s permission is in the Skills table. &ldquo;Always allow&rdquo; holds for the content it was
            given for: editing SKILL.md or a script makes the skill ask again.
          </p>
          <div className="stack">
            <div data-testid="grants">
              <h3>Always allowed</h3>
              <GrantsTable
                grants={overview.permissions.grants}
                {...(users ? { people: new Map(users.map((u) => [u.id, u.email])) } : {})}
              />
            </div>
            <div data-testid="decisions">
              <h3>Recent decisions</h3>
              <DecisionLog decisions={overview.permissions.decisions} />
            </div>
            <div data-testid="script-runs">
              <h3>Runs: scripts and shell commands</h3>
              <ScriptRunLog
                runs={overview.permissions.scriptRuns}
                {...(users ? { people: new Map(users.map((u) => [u.id, u.email])) } : {})}
              />
            </div>
          </div>
        </section>

        <section className="card" id="catalog" aria-labelledby="catalog-h" data-testid="catalog">
          <h2 id="catalog-h">
            Catalog{' '}
            <span className="muted small">
              <span data-testid="catalog-tokens">{catalog.tokens}</span> of{' '}
              <span data-testid="catalog-budget">{catalog.budgetTokens}</span> tokens
            </span>
          </h2>
          <p className="catalog-counts small" data-testid="catalog-counts">
            <span data-testid="catalog-listed">{countOf(catalog.listed, 'skill')} listed</span>
            {catalog.shortened > 0 && <span>, {catalog.shortened} with shortened descriptions</span>}
            {' · '}
            <span data-testid="catalog-not-listed">{catalog.notListed} not listed</span>
            <span className="muted"> (found by search)</span>
            {' · '}
            <span data-testid="catalog-hidden">{catalog.hidden} not offered</span>
            <span className="muted"> (manual or off)</span>
          </p>
          <p className="muted small">
            The <code>available_skills</code> block the model receives in a new chat&apos;s instructions, under the
            budget and each skill&apos;s mode. When skills must be left out, each chat&apos;s first message decides
            which; none is used here.
          </p>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls, so a keyboard must reach it (axe: scrollable-region-focusable) */}
          <pre className="catalog" data-testid="catalog-text" tabIndex={0}>
            {catalog.text}
          </pre>
        </section>
      </main>
    </>
  );
}
