/**
 * The admin page's read model: one plain object with everything `/admin` shows (roots, skills with their mode and
 * permission, problems, activations, grants, approval decisions, script runs, the catalog), built from the registry's
 * scan and the logs in the database. `buildAdminOverview` is pure (tests feed it a scan and rows);
 * `loadAdminOverview` does the I/O.
 */

import path from 'node:path';
import { buildSkillView } from '../chat/skill-view';
import type { AppConfig, SkillMode } from '../config';
import {
  type ActivationEvent,
  activationCountsBySkill,
  countActivationEvents,
  getChat,
  getDb,
  listActivationEvents,
  listDecisions,
  listGrants,
  listModeOverrides,
  listScriptRuns,
  type PermissionDecision,
  type SkillActivationCount,
} from '../db';
import { skillContentHash } from '../permissions/content-hash';
import type { PermissionPolicy, ResolvedPermission } from '../permissions/policy';
import { type BudgetedCatalog, buildBudgetedCatalog, catalogBudget, DEFAULT_BUDGET_TOKENS } from '../skills/budget';
import { countTokens } from '../skills/catalog';
import { compileGlobRules } from '../skills/globs';
import { DEFAULT_MODE, type ModeConfig, modeIn } from '../skills/modes';
import type { SkillRegistry } from '../skills/registry';
import type { DiscoveryResult, RootKind, Severity, Skill, SkillScope } from '../skills/types';
import { createPathDisplay, type PathDisplay, type PathMode, relativeToRoot } from './paths';

export type SkillStatus = 'ok' | 'warnings' | 'not-loaded';

/** Where a skill's mode comes from: set on /admin, a config pattern, or neither (`auto`). */
export type ModeSource = 'override' | 'config' | 'default';

export interface AdminSkillMode {
  mode: SkillMode;
  source: ModeSource;
  /** The config pattern that decides the mode without an override (`pdf-*`); null when none matches. */
  pattern: string | null;
  /** The mode the config gives it: what "config default" goes back to. */
  configMode: SkillMode;
}

export interface AdminRoot {
  /** 1 = highest precedence. */
  precedence: number;
  path: string;
  scope: SkillScope;
  kind: RootKind;
  exists: boolean;
  skillCount: number;
}

export interface AdminSkillRow {
  name: string;
  description: string;
  /** Where the skill folder is, as displayed. */
  location: string;
  root: string;
  /** The folder inside its root (`pdf`, `team/pdf`). */
  relDir: string;
  scope: SkillScope;
  status: SkillStatus;
  /** Diagnostics about this skill (warnings and errors; info notes are not counted). */
  problemCount: number;
  /** Tokens of its full entry in the catalog; null when not loaded (it is not in the catalog). */
  catalogTokens: number | null;
  /** Whether the catalog the model receives lists it (its mode and the budget decide). */
  inCatalog: boolean;
  /** Its mode and where it comes from; null when not loaded (a folder that failed has no trustworthy name). */
  mode: AdminSkillMode | null;
  activationCount: number;
  lastActivatedAt: number | null;
  /** Whether it may be activated without asking, and why; null when it was not loaded. */
  permission: ResolvedPermission | null;
}

export interface AdminProblem {
  severity: Severity;
  code: string;
  message: string;
  hint: string | null;
  /** The root the problem was found under, as displayed; null for problems not tied to a root. */
  root: string | null;
  /** The skill folder relative to its root (`pdf`, `team/pdf`); null for root-level problems. */
  skillPath: string | null;
}

export interface AdminNotLoaded {
  /** The folder name: a skill that was not loaded has no trustworthy name. */
  name: string;
  location: string;
  reasons: string[];
}

export interface AdminCollision {
  name: string;
  winner: string;
  shadowed: string[];
}

export interface AdminActivation {
  id: number;
  at: number;
  skillName: string;
  chatId: string;
  chatTitle: string;
  how: 'explicit' | 'model';
}

export interface AdminActivationCount {
  skillName: string;
  count: number;
  explicitCount: number;
  modelCount: number;
  chatCount: number;
  lastAt: number;
}

/** An unrevoked "always allow", tied to the content it was given for. */
export interface AdminGrant {
  id: number;
  skillName: string;
  contentHash: string;
  grantedAt: number;
  /** Whether the skill's files still hash to the granted content; null when the skill is not loaded. */
  current: boolean | null;
}

/** A chat a log row links to; the title is null once the chat was deleted. */
interface ChatLink {
  chatId: string | null;
  chatTitle: string | null;
}

export interface AdminDecision extends ChatLink {
  id: number;
  at: number;
  skillName: string;
  decision: PermissionDecision;
}

export interface AdminScriptRun extends ChatLink {
  id: number;
  at: number;
  skillName: string;
  script: string;
  args: string[];
  /** Null when the sandbox stopped the script before it exited. */
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
}

export interface AdminPermissions {
  grants: AdminGrant[];
  decisions: AdminDecision[];
  scriptRuns: AdminScriptRun[];
}

export interface AdminOverview {
  scannedAt: number;
  durationMs: number;
  pathMode: PathMode;
  roots: AdminRoot[];
  skills: AdminSkillRow[];
  problems: AdminProblem[];
  notLoaded: AdminNotLoaded[];
  collisions: AdminCollision[];
  activations: { events: AdminActivation[]; total: number; bySkill: AdminActivationCount[] };
  permissions: AdminPermissions;
  catalog: AdminCatalog;
}

/** The catalog block the model receives, under the budget and modes (budget.ts). */
export interface AdminCatalog {
  text: string;
  tokens: number;
  budgetTokens: number;
  /** Skills in the block. */
  listed: number;
  /** Skills left out of the block that `skills_search` finds (over budget, or in `search` mode). */
  notListed: number;
  /** Loaded skills the model is not told about at all (`manual` and `off`). */
  hidden: number;
  /** Listed skills whose description was shortened to fit. */
  shortened: number;
}

export interface ActivationData {
  events: ActivationEvent[];
  total: number;
  bySkill: SkillActivationCount[];
}

/** The catalog entry of one skill, as `renderCatalog` writes it, for its token count. */
function entryTokens(skill: { name: string; description: string }): number {
  return countTokens(JSON.stringify({ name: skill.name, description: skill.description }));
}

/** What the permissions part of the page is built from: the operator's policy and the rows of the logs. */
export interface PermissionData extends AdminPermissions {
  /** The policy's answer per skill; without it, skills show no permission. */
  resolve?: (skill: Pick<Skill, 'name' | 'root'>) => ResolvedPermission;
}

const NO_PERMISSION_DATA: PermissionData = { grants: [], decisions: [], scriptRuns: [] };

/** What the mode column and the catalog section are built from. */
export interface CatalogData {
  /** The budgeted catalog, as `registry.catalog()` builds it for a turn. */
  catalog: BudgetedCatalog;
  modeOf: (name: string) => AdminSkillMode;
}

/**
 * Each skill's mode and its source. `modes` are the registry's (overrides applied), `stored` the overrides saved from
 * /admin. An override equal to the config's mode still counts as one (going back to the config is a separate choice),
 * and a mode that differs from the config's is an override even when not stored (set in memory only).
 */
export function modeSources(
  config: ModeConfig,
  modes: ReadonlyMap<string, SkillMode>,
  stored: ReadonlyMap<string, SkillMode>,
): (name: string) => AdminSkillMode {
  const rule = compileGlobRules(config.skills?.modes);
  return (name) => {
    const mode = modeIn(modes, name);
    const hit = rule(name);
    const configMode = hit?.value ?? DEFAULT_MODE;
    const pattern = hit?.pattern ?? null;
    const overridden = stored.get(name) === mode || mode !== configMode;
    return { mode, source: overridden ? 'override' : hit ? 'config' : 'default', pattern, configMode };
  };
}

/** Without catalog data: every skill `auto` under the default budget. */
function defaultCatalogData(skills: readonly Skill[]): CatalogData {
  return {
    catalog: buildBudgetedCatalog(skills, { budgetTokens: DEFAULT_BUDGET_TOKENS }),
    modeOf: () => ({ mode: DEFAULT_MODE, source: 'default', pattern: null, configMode: DEFAULT_MODE }),
  };
}

function counts(severity: Severity): boolean {
  return severity !== 'info';
}

export function buildAdminOverview(
  scan: DiscoveryResult,
  activations: ActivationData,
  display: PathDisplay,
  permissions: PermissionData = NO_PERMISSION_DATA,
  catalogData: CatalogData = defaultCatalogData(scan.skills),
): AdminOverview {
  const { catalog, modeOf } = catalogData;
  const listed = new Set(catalog.listed);
  const countByName = new Map(activations.bySkill.map((c) => [c.skillName, c]));
  const problemsByDir = new Map<string, number>();
  for (const d of scan.diagnostics) {
    if (d.skillDir && counts(d.severity)) problemsByDir.set(d.skillDir, (problemsByDir.get(d.skillDir) ?? 0) + 1);
  }

  const shadowedDirs = new Set(scan.collisions.flatMap((c) => c.losers));
  const loadedDirs = new Set(scan.skills.map((s) => s.dir));
  const rows: AdminSkillRow[] = scan.skills.map((skill) => {
    const activation = countByName.get(skill.name);
    const problemCount = skill.diagnostics.filter((d) => counts(d.severity)).length;
    return {
      name: skill.name,
      description: skill.description,
      location: display.folder(skill.dir),
      root: display.root(skill.root),
      relDir: skill.relDir,
      scope: skill.scope,
      status: problemCount > 0 ? 'warnings' : 'ok',
      problemCount,
      catalogTokens: entryTokens(skill),
      inCatalog: listed.has(skill.name),
      mode: modeOf(skill.name),
      activationCount: activation?.count ?? 0,
      lastActivatedAt: activation ? activation.lastAt.getTime() : null,
      permission: permissions.resolve?.(skill) ?? null,
    };
  });

  // Skills that failed to load: their folders carry error diagnostics and appear in no skill and no collision.
  const notLoadedByDir = new Map<string, { root: string | undefined; reasons: string[] }>();
  for (const d of scan.diagnostics) {
    if (d.severity !== 'error' || !d.skillDir || loadedDirs.has(d.skillDir) || shadowedDirs.has(d.skillDir)) continue;
    const entry = notLoadedByDir.get(d.skillDir) ?? { root: d.root, reasons: [] };
    entry.reasons.push(display.text(d.message));
    notLoadedByDir.set(d.skillDir, entry);
  }
  const notLoaded: AdminNotLoaded[] = [...notLoadedByDir].map(([dir, { reasons }]) => ({
    name: path.basename(dir),
    location: display.folder(dir),
    reasons,
  }));
  const scopeOfRoot = new Map(scan.roots.map((r) => [r.path, r.scope]));
  for (const [dir, { root }] of notLoadedByDir) {
    rows.push({
      name: path.basename(dir),
      description: '',
      location: display.folder(dir),
      root: root ? display.root(root) : '',
      relDir: (root && relativeToRoot(dir, root)) || path.basename(dir),
      scope: (root && scopeOfRoot.get(root)) || 'project',
      status: 'not-loaded',
      problemCount: problemsByDir.get(dir) ?? 0,
      catalogTokens: null,
      inCatalog: false,
      mode: null,
      activationCount: countByName.get(path.basename(dir))?.count ?? 0,
      lastActivatedAt: null,
      permission: null,
    });
  }

  const problems: AdminProblem[] = scan.diagnostics.map((d) => ({
    severity: d.severity,
    code: d.code,
    message: display.text(d.message),
    hint: d.hint ? display.text(d.hint) : null,
    root: d.root ? display.root(d.root) : null,
    skillPath: d.skillDir && d.root ? (relativeToRoot(d.skillDir, d.root) ?? display.folder(d.skillDir)) : null,
  }));
  const severityOrder: Record<Severity, number> = { error: 0, warning: 1, info: 2 };
  problems.sort((a, b) => severityOrder[a.severity] - severityOrder[b.severity]);

  return {
    scannedAt: scan.scannedAt,
    durationMs: scan.durationMs,
    pathMode: display.mode,
    roots: scan.roots.map((r, i) => ({
      precedence: i + 1,
      path: display.root(r.path),
      scope: r.scope,
      kind: r.kind,
      exists: r.exists,
      skillCount: r.skillCount,
    })),
    skills: rows,
    problems,
    notLoaded,
    collisions: scan.collisions.map((c) => ({
      name: c.name,
      winner: display.folder(c.winner),
      shadowed: c.losers.map((l) => display.folder(l)),
    })),
    activations: {
      events: activations.events.map((e) => ({
        id: e.id,
        at: e.at.getTime(),
        skillName: e.skillName,
        chatId: e.chatId,
        chatTitle: e.chatTitle,
        how: e.how,
      })),
      total: activations.total,
      bySkill: activations.bySkill.map((c) => ({
        skillName: c.skillName,
        count: c.count,
        explicitCount: c.explicitCount,
        modelCount: c.modelCount,
        chatCount: c.chatCount,
        lastAt: c.lastAt.getTime(),
      })),
    },
    permissions: { grants: permissions.grants, decisions: permissions.decisions, scriptRuns: permissions.scriptRuns },
    catalog: {
      text: catalog.catalog,
      tokens: catalog.tokens,
      budgetTokens: catalog.budgetTokens,
      listed: catalog.listed.length,
      notListed: catalog.omitted,
      hidden: scan.skills.length - catalog.listed.length - catalog.omitted,
      shortened: catalog.shortened,
    },
  };
}

/** Newest activation events shown on the page; the total says how many exist. */
export const ACTIVATION_LOG_LIMIT = 200;

export function loadActivationData(databasePath: string): ActivationData {
  const db = getDb(databasePath);
  return {
    events: listActivationEvents({ limit: ACTIVATION_LOG_LIMIT }, db),
    total: countActivationEvents({}, db),
    bySkill: activationCountsBySkill(db),
  };
}

/** Newest approval decisions and script runs shown on the page. */
export const PERMISSION_LOG_LIMIT = 100;

/** Grants (each checked against its skill's files as they are now), decisions and script runs with chat titles. */
export async function loadPermissionData(
  databasePath: string,
  skills: readonly Skill[],
  policy: Pick<PermissionPolicy, 'resolve'>,
): Promise<PermissionData> {
  const db = getDb(databasePath);
  const titles = new Map<string, string | null>();
  const link = (chatId: string | null): ChatLink => {
    if (chatId === null) return { chatId, chatTitle: null };
    if (!titles.has(chatId)) titles.set(chatId, getChat(chatId, db)?.title ?? null);
    return { chatId, chatTitle: titles.get(chatId) ?? null };
  };
  const byName = new Map(skills.map((s) => [s.name, s]));
  const hashes = new Map<string, Promise<string | null>>();
  const currentHash = (name: string) => {
    const skill = byName.get(name);
    if (!skill) return Promise.resolve(null);
    if (!hashes.has(name))
      hashes.set(
        name,
        skillContentHash(skill).catch(() => null),
      );
    return hashes.get(name)!;
  };
  const grants = await Promise.all(
    listGrants(db).map(async (g): Promise<AdminGrant> => {
      const hash = await currentHash(g.skillName);
      return {
        id: g.id,
        skillName: g.skillName,
        contentHash: g.contentHash,
        grantedAt: g.grantedAt.getTime(),
        current: hash === null ? null : hash === g.contentHash,
      };
    }),
  );
  return {
    resolve: (skill) => policy.resolve(skill),
    grants,
    decisions: listDecisions(PERMISSION_LOG_LIMIT, db).map((d) => ({
      id: d.id,
      at: d.at.getTime(),
      skillName: d.skillName,
      decision: d.decision,
      ...link(d.chatId),
    })),
    scriptRuns: listScriptRuns(PERMISSION_LOG_LIMIT, db).map((r) => ({
      id: r.id,
      at: r.at.getTime(),
      skillName: r.skillName,
      script: r.script,
      args: r.args,
      exitCode: r.exitCode,
      timedOut: r.timedOut,
      durationMs: r.durationMs,
      ...link(r.chatId),
    })),
  };
}

/** The catalog cache key of the admin page's preview (no chat has this id: chat ids are checked by a pattern). */
const ADMIN_PREVIEW = '#admin-preview';

export async function loadAdminOverview(
  app: {
    config: AppConfig;
    registry: SkillRegistry;
    policy: PermissionPolicy;
    model: { contextWindow?: number };
  },
  options: { paths?: PathMode } = {},
): Promise<AdminOverview> {
  const scan = await app.registry.current();
  const activations = loadActivationData(app.config.databasePath);
  const modes = await app.registry.modes();
  // The catalog a new chat's first turn gets: the model's budget and the same use counts, but no first message yet
  // (when skills must be left out, each chat's first message decides which).
  // Built by the same function a turn uses, so denied skills are left out here exactly as for the model.
  const view = buildSkillView({
    source: {
      skills: scan.skills,
      modes,
      matcher: await app.registry.matcher(),
      usage: new Map(activations.bySkill.map((c) => [c.skillName, c.count])),
    },
    policy: app.policy,
    config: app.config,
    contextWindow: app.model.contextWindow,
    chatId: ADMIN_PREVIEW,
    relevanceText: '',
  });
  const catalog = view.catalog ?? {
    catalog: '(none: no skill can be offered to the model, so its instructions carry no catalog and no skill tools)',
    listed: [],
    omitted: 0,
    tokens: 0,
    shortened: 0,
    budgetTokens: catalogBudget(app.model.contextWindow, app.config),
  };
  return buildAdminOverview(
    scan,
    activations,
    createPathDisplay(app.config, options.paths),
    await loadPermissionData(app.config.databasePath, scan.skills, app.policy),
    { catalog, modeOf: modeSources(app.config, modes, listModeOverrides(getDb(app.config.databasePath))) },
  );
}
