/**
 * The admin page's read model: one plain object with everything `/admin` shows, assembled from one module per
 * section (scan.ts: roots, problems, collisions; skill-rows.ts; activations.ts; permissions.ts; catalog.ts).
 * `buildAdminOverview` is pure (tests feed it a scan and rows); `loadAdminOverview` does the I/O.
 */
import type { AccessMap, AccessResolver } from '../access/resolver';
import type { AppConfig } from '../config';
import type { Database } from '../db';
import type { McpManager } from '../mcp/manager';
import type { PersonalMcp } from '../mcp/people';
import { type BudgetedCatalog, buildBudgetedCatalog, DEFAULT_BUDGET_TOKENS } from '../skills/catalog/budget';
import type { SkillRegistry } from '../skills/registry';
import type { DiscoveryResult } from '../skills/types';
import { type ActivationData, type AdminActivations, buildActivations, loadActivationData } from './activations';
import { type AdminCatalog, previewCatalog, summarizeCatalog } from './catalog';
import { type AdminMcp, buildMcpAdmin, NO_MCP } from './mcp';
import { createPathDisplay, type PathDisplay, type PathMode } from './paths';
import { type AdminPermissions, loadPermissionData, NO_PERMISSIONS } from './permissions';
import {
  type AdminCollision,
  type AdminProblem,
  type AdminRoot,
  buildCollisions,
  buildProblems,
  buildRoots,
} from './scan';
import { type AdminNotLoaded, type AdminSkillRow, buildSkillRows } from './skill-rows';

export type { AdminActivation, AdminActivationCount } from './activations';
export type { AdminCatalog } from './catalog';
export type { AdminMcp, AdminMcpServer, AdminMcpTool } from './mcp';
export type { AdminDecision, AdminGrant, AdminPermissions, AdminScriptRun } from './permissions';
export type { AdminCollision, AdminProblem, AdminRoot } from './scan';
export type { AdminNotLoaded, AdminSkillMode, AdminSkillRow, SkillStatus } from './skill-rows';

export interface AdminOverview {
  scannedAt: number;
  durationMs: number;
  pathMode: PathMode;
  roots: AdminRoot[];
  skills: AdminSkillRow[];
  problems: AdminProblem[];
  notLoaded: AdminNotLoaded[];
  collisions: AdminCollision[];
  activations: AdminActivations;
  permissions: AdminPermissions;
  catalog: AdminCatalog;
  /** MCP servers: connected or why not, their tools, permissions and counts (mcp.ts). */
  mcp: AdminMcp;
}

export interface OverviewParts {
  /** Each skill's access record: its mode and permission. Without it, skills show neither. */
  access?: AccessMap;
  permissions?: AdminPermissions;
  /** The budgeted catalog a turn builds; without it, every skill listed under the default budget. */
  catalog?: BudgetedCatalog;
  mcp?: AdminMcp;
}

export function buildAdminOverview(
  scan: DiscoveryResult,
  activations: ActivationData,
  display: PathDisplay,
  parts: OverviewParts = {},
): AdminOverview {
  const catalog = parts.catalog ?? buildBudgetedCatalog(scan.skills, { budgetTokens: DEFAULT_BUDGET_TOKENS });
  const { rows, notLoaded } = buildSkillRows({
    scan,
    activations,
    display,
    listed: new Set(catalog.listed),
    access: parts.access,
  });
  return {
    scannedAt: scan.scannedAt,
    durationMs: scan.durationMs,
    pathMode: display.mode,
    roots: buildRoots(scan, display),
    skills: rows,
    problems: buildProblems(scan, display),
    notLoaded,
    collisions: buildCollisions(scan, display),
    activations: buildActivations(activations),
    permissions: parts.permissions ?? NO_PERMISSIONS,
    catalog: summarizeCatalog(catalog, scan.skills.length),
    mcp: parts.mcp ?? NO_MCP,
  };
}

export async function loadAdminOverview(
  app: {
    config: AppConfig;
    registry: SkillRegistry;
    access: AccessResolver;
    db: Database;
    /** The catalog preview is the one a new chat gets, under the default model's budget. */
    models: { defaultEntry(): { contextWindow?: number } };
    mcp?: Pick<McpManager, 'list'>;
    mcpPeople?: Pick<PersonalMcp, 'connections'>;
  },
  options: { paths?: PathMode } = {},
): Promise<AdminOverview> {
  const scan = await app.registry.current();
  const activations = await loadActivationData(app.db);
  const access = app.access.resolveAll(scan.skills);
  const catalog = await previewCatalog({
    skills: scan.skills,
    access,
    matcher: await app.registry.matcher(),
    usage: new Map(activations.bySkill.map((c) => [c.skillName, c.count])),
    config: app.config,
    contextWindow: app.models.defaultEntry().contextWindow,
  });
  // The scan's roots, not only the config's: an MCP server's served skills show as `mcp:<label>`.
  const display = createPathDisplay({ ...app.config, roots: scan.roots }, options.paths);
  return buildAdminOverview(scan, activations, display, {
    access,
    permissions: await loadPermissionData(app.db, scan.skills),
    catalog,
    ...(app.mcp
      ? { mcp: buildMcpAdmin(app.mcp.list(), app.config.mcp, (await app.mcpPeople?.connections(null)) ?? []) }
      : {}),
  });
}
