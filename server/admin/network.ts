/**
 * /admin's Network section: per skill, the hosts and secrets it declares beside what the operator grants it, the
 * package indexes runs install from (runtime.installs), and the egress record, filtered by person, skill, host and outcome. `buildAdminNetwork` is pure; `loadAdminNetwork` reads
 * the registry and the record. The same query (`parseEgressQuery`) drives the page and its JSON export.
 */
import * as z from 'zod/mini';
import type { AccessResolver } from '../access/resolver';
import type { AppConfig, Permission } from '../config';
import {
  countEgressEvents,
  type Database,
  type EgressEventQuery,
  type EgressEventRecord,
  egressFilterChoices,
  listEgressEvents,
  MAX_EGRESS_PAGE,
} from '../db';
import type { EgressConfig } from '../egress/config';
import { readDeclarations } from '../egress/declarations';
import { type GrantSummary, grantSummary } from '../egress/grants';
import { type EgressExport, egressExport } from '../egress/record';
import { AppError } from '../errors';
import type { InstallMode } from '../sandbox/config';
import type { SkillRegistry } from '../skills/registry';
import type { Skill } from '../skills/types';
import { indexAccess, packageIndexes } from '../toolchain/package-indexes';

export const EGRESS_PAGE_SIZE = 50;

/** The record's filters as the page's form and the export link write them. */
export interface EgressFilters {
  /** A person's user id. */
  person?: string;
  skill?: string;
  host?: string;
  allowed?: boolean;
  /** 1-based. */
  page: number;
}

export interface AdminNetworkSkill extends GrantSummary {
  permission: Permission | null;
}

/** One row of the record as /admin shows it: the person named, the time in ms. */
export type AdminEgressEvent = Omit<EgressEventRecord, 'runId' | 'userId' | 'at'> & {
  at: number;
  /** The person's email where known, else their id (`local` on a loopback server). */
  person: string | null;
};

export interface AdminNetwork {
  /** Skills that declare or are granted anything, by name. */
  skills: AdminNetworkSkill[];
  /** Loaded skills that declare nothing and are granted nothing. */
  quietSkills: number;
  /** `network.private`, shown as configured. */
  privateRanges: string[];
  installs: AdminInstalls;
  events: AdminEgressEvent[];
  total: number;
  filters: EgressFilters;
  pageSize: number;
  choices: { people: Array<{ id: string; label: string }>; hosts: string[]; skills: string[] };
}

/** `runtime.installs` and the package indexes runs read from when it is `allow`. */
export interface AdminInstalls {
  mode: InstallMode;
  /** `runtime.indexes`, or what pip's and npm's configuration on this machine say. */
  source: 'config' | 'discovered';
  pip: { index: string; extra: string[]; findLinks: string[] };
  npm: string;
  /** What runs reach through their proxy (GET and HEAD only), and the folders bound read-only. */
  hosts: string[];
  folders: string[];
  problems: string[];
}

export async function loadAdminInstalls(runtime: AppConfig['execution']['runtime']): Promise<AdminInstalls> {
  const indexes = await packageIndexes(runtime);
  const access = indexAccess(indexes);
  return {
    mode: runtime.installs,
    source: indexes.source,
    pip: indexes.pip,
    npm: indexes.npm,
    hosts: access.hosts,
    folders: access.folders,
    problems: [...indexes.problems, ...access.problems],
  };
}

/** The egress part of the configuration (`network`, `secrets`), defaults when the config has none. */
export function egressConfigOf(config: AppConfig): EgressConfig {
  return config.egress;
}

const egressQuerySchema = z.strictObject({
  person: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  skill: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  host: z.optional(z.string().check(z.minLength(1), z.maxLength(300))),
  allowed: z.optional(z.enum(['yes', 'no'])),
  page: z.optional(z.string().check(z.regex(/^[1-9]\d{0,5}$/, 'a page number from 1'))),
});

/**
 * The record's filters from query parameters (`person`, `skill`, `host`, `allowed=yes|no`, `page`); an empty value
 * is no filter. `ignore` names parameters that belong to the page (`paths`). A bad or repeated parameter is a 400.
 */
export function parseEgressQuery(params: URLSearchParams, ignore: readonly string[] = []): EgressFilters {
  const raw: Record<string, string> = {};
  for (const [key, value] of params) {
    if (ignore.includes(key)) continue;
    if (key in raw) throw new AppError('bad_request:egress', `Give "${key}" once`);
    if (value.trim() !== '') raw[key] = value.trim();
  }
  const parsed = egressQuerySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new AppError('bad_request:egress', `Invalid filter of the egress record: ${where}${issue?.message}`);
  }
  const { person, skill, host, allowed, page } = parsed.data;
  return {
    ...(person ? { person } : {}),
    ...(skill ? { skill } : {}),
    ...(host ? { host: host.toLowerCase() } : {}),
    ...(allowed ? { allowed: allowed === 'yes' } : {}),
    page: page ? Number(page) : 1,
  };
}

/** The filters as query parameters (for links: the export, the next page). */
export function egressQueryString(filters: EgressFilters, page = filters.page): string {
  const params = new URLSearchParams();
  if (filters.person) params.set('person', filters.person);
  if (filters.skill) params.set('skill', filters.skill);
  if (filters.host) params.set('host', filters.host);
  if (filters.allowed !== undefined) params.set('allowed', filters.allowed ? 'yes' : 'no');
  if (page > 1) params.set('page', String(page));
  return params.toString();
}

export function toEventQuery(filters: EgressFilters, pageSize: number): EgressEventQuery {
  return {
    ...(filters.person ? { userId: filters.person } : {}),
    ...(filters.skill ? { skill: filters.skill } : {}),
    ...(filters.host ? { host: filters.host } : {}),
    ...(filters.allowed !== undefined ? { allowed: filters.allowed } : {}),
    limit: pageSize,
    offset: (filters.page - 1) * pageSize,
  };
}

export function buildNetworkSkills(
  config: EgressConfig,
  skills: ReadonlyArray<Pick<Skill, 'name' | 'frontmatter'>>,
  permission: (name: string) => Permission | null,
): { skills: AdminNetworkSkill[]; quiet: number } {
  const rows: AdminNetworkSkill[] = [];
  let quiet = 0;
  for (const skill of skills) {
    const summary = grantSummary(config, { name: skill.name, declares: readDeclarations(skill) });
    if (summary.hosts.length === 0 && summary.secrets.length === 0 && summary.problems.length === 0) quiet++;
    else rows.push({ ...summary, permission: permission(skill.name) });
  }
  rows.sort((a, b) => (a.skill < b.skill ? -1 : a.skill > b.skill ? 1 : 0));
  return { skills: rows, quiet };
}

export function buildAdminEvents(
  records: readonly EgressEventRecord[],
  person: (userId: string) => string | undefined,
): AdminEgressEvent[] {
  return records.map(({ runId: _run, userId, at, ...row }) => ({
    ...row,
    at: at.getTime(),
    person: userId === null ? null : (person(userId) ?? userId),
  }));
}

export async function loadAdminNetwork(
  app: { config: AppConfig; registry: SkillRegistry; access: AccessResolver; db: Database },
  filters: EgressFilters,
  /** User id -> email, for the people who have accounts (an exposed server). */
  people: ReadonlyMap<string, string> = new Map(),
): Promise<AdminNetwork> {
  const config = egressConfigOf(app.config);
  const scan = await app.registry.current();
  const access = app.access.resolveAll(scan.skills);
  const { skills, quiet } = buildNetworkSkills(config, scan.skills, (name) => access.get(name)?.permission ?? null);
  const query = toEventQuery(filters, EGRESS_PAGE_SIZE);
  const [records, total, choices, installs] = await Promise.all([
    listEgressEvents(query, app.db),
    countEgressEvents(query, app.db),
    egressFilterChoices(app.db),
    loadAdminInstalls(app.config.execution.runtime),
  ]);
  return {
    skills,
    quietSkills: quiet,
    privateRanges: config.network.private,
    installs,
    events: buildAdminEvents(records, (id) => people.get(id)),
    total,
    filters,
    pageSize: EGRESS_PAGE_SIZE,
    choices: {
      people: choices.userIds.map((id) => ({ id, label: people.get(id) ?? id })),
      hosts: choices.hosts,
      skills: [...new Set([...scan.skills.map((s) => s.name)])].sort(),
    },
  };
}

/** The most events one export holds (newest first); the filters narrow a larger record. */
export const MAX_EXPORT_EVENTS = 100_000;

/** The record under the filters (every page), as the JSON export's document. */
export async function loadEgressExport(
  app: { db: Database },
  filters: EgressFilters,
  people: ReadonlyMap<string, string> = new Map(),
  now = new Date(),
): Promise<EgressExport> {
  const records: EgressEventRecord[] = [];
  const query = toEventQuery({ ...filters, page: 1 }, MAX_EGRESS_PAGE);
  while (records.length < MAX_EXPORT_EVENTS) {
    const page = await listEgressEvents({ ...query, offset: records.length }, app.db);
    records.push(...page);
    if (page.length < MAX_EGRESS_PAGE) break;
  }
  const { page: _page, ...shown } = filters;
  return egressExport(records.slice(0, MAX_EXPORT_EVENTS), shown, { now, person: (id) => people.get(id) });
}
