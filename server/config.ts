/**
 * Application configuration: embedded defaults, then `skillchat.config.json` (or the file named by
 * SKILLCHAT_CONFIG), then environment overrides. Validated with zod (zod/mini: server/config-parts.ts) so a typo
 * is a clear error, not a silent default.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as z from 'zod/mini';
import { count, text } from './config-parts';
import { type EgressConfig, networkConfigSchema, resolveEgressConfig, secretsConfigSchema } from './egress/config';
import { isAllowEntry } from './install/allow-entry';
import { DEFAULT_LIMITS, type Limits } from './limits';
import { type McpConfig, mcpServersSchema, mcpSettingsSchema, resolveMcpConfig } from './mcp/config';
import { processWide } from './process-wide';
import {
  type ExecutionConfig,
  resolveExecutionConfig,
  runtimeConfigSchema,
  sandboxConfigSchema,
  shellConfigSchema,
  workspaceConfigSchema,
} from './sandbox/config';

export { DEFAULT_LIMITS, type Limits } from './limits';

/** Where skills are looked for. Defined here, not in skills/: the skills engine depends on the config, not back. */
export type SkillScope = 'project' | 'user';

/** `mcp`: not a folder of the config but an MCP server's served skills (server/mcp/skills.ts), shown like a root. */
export type RootKind = 'app' | 'agents' | 'user-agents' | 'user-skillchat' | 'configured' | 'mcp';

export interface SkillRoot {
  /** Absolute path (as configured, not realpath'd). */
  path: string;
  scope: SkillScope;
  kind: RootKind;
  /**
   * An extra root's stated place among the others: `first` before every other root (its skills win a shared name),
   * `last` after them (theirs win). Unset when the operator did not choose; a shared name is then reported at start-up.
   */
  precedence?: 'first' | 'last';
}

export const CONFIG_FILE_NAME = 'skillchat.config.json';

const limitsSchema = z.strictObject({
  /** Bytes of SKILL.md read before parsing; larger files are not loaded. */
  maxSkillFileBytes: count(DEFAULT_LIMITS.maxSkillFileBytes),
  /** Bytes of frontmatter parsed (yaml's duplicate-key check is quadratic). */
  maxFrontmatterBytes: count(DEFAULT_LIMITS.maxFrontmatterBytes),
  /** Bytes of a resource returned to the model; more is truncated with a notice. */
  maxResourceBytes: count(DEFAULT_LIMITS.maxResourceBytes),
  /** How deep discovery descends inside a root looking for skill folders. */
  maxDepth: z._default(z.int().check(z.gte(1), z.lte(20)), DEFAULT_LIMITS.maxDepth),
  /** Hidden characters (tag, bidi, zero-width) in SKILL.md: `warn` loads the skill with a warning, `block` does not. */
  hiddenText: z._default(z.enum(['warn', 'block']), DEFAULT_LIMITS.hiddenText),
  /**
   * Folders discovery visits per root before it stops with a `visit-cap` warning: a root (or a link in it) that
   * reaches a system folder must not load the disk. 2.5 times the largest collection the bench loads (10,000 skills).
   */
  maxFoldersPerRoot: count(DEFAULT_LIMITS.maxFoldersPerRoot),
});

const installSchema = z.strictObject({
  /** Where installs go (writable). Default: `~/.skillchat/skills` when it is a root, else the first root. */
  root: z.optional(text()),
  /** Most files an archive or repository may hold. */
  maxFiles: count(1000),
  /** Most bytes it may unpack to. */
  maxBytes: count(50 * 1024 * 1024),
  /** Highest compression ratio of an entry (or the archive) over 1 MiB: a zip bomb's is in the thousands. */
  maxRatio: z._default(z.number().check(z.positive()), 100),
  /** Most bytes downloaded for an archive or an index. */
  maxDownloadBytes: count(20 * 1024 * 1024),
  /**
   * URL installs (and their redirects, and git) reach public addresses only: not loopback, private, link-local,
   * carrier-grade NAT, multicast or metadata addresses. `true` lets them reach any address (a mirror on the LAN).
   */
  allowPrivateNetworks: z._default(z.boolean(), false),
  /** Host names, addresses or CIDR ranges URL installs may reach although they are not public (`10.2.0.0/16`). */
  allowHosts: z._default(
    z.array(text().check(z.refine(isAllowEntry, 'must be a host name, an IP address or a CIDR range'))),
    [],
  ),
  /**
   * Whether people may install their own skills on /settings (default true): each person's are seen and used by
   * them alone, under `<install root's parent>/personal-skills/<user id>`. `false` hides and refuses them (the
   * folders stay on disk).
   */
  personalSkills: z.optional(z.boolean()),
});

export type InstallConfig = Omit<z.infer<typeof installSchema>, 'root'> & { root: string };

const rootSchema = z.strictObject({
  path: text(),
  scope: z._default(z.enum(['project', 'user']), 'project'),
  /** For an extra root: `first` puts it before every other root, `last` (where extras go anyway) says so knowingly. */
  precedence: z.optional(z.enum(['first', 'last'])),
});

export const PERMISSIONS = ['allow', 'ask', 'deny'] as const;
export type Permission = (typeof PERMISSIONS)[number];

const permissionsSchema = z.strictObject({
  /** Skill-name globs to a permission (`"pdf-*": "ask"`); the most specific pattern wins. */
  rules: z.optional(z.record(text(), z.enum(PERMISSIONS))),
  /** Default per source; `parent-agents` is `.agents/skills` in a folder above the app. */
  defaults: z.optional(
    z.partial(
      z.strictObject({
        app: z.enum(PERMISSIONS),
        agents: z.enum(PERMISSIONS),
        'parent-agents': z.enum(PERMISSIONS),
        'user-agents': z.enum(PERMISSIONS),
        'user-skillchat': z.enum(PERMISSIONS),
        configured: z.enum(PERMISSIONS),
        personal: z.enum(PERMISSIONS),
      }),
    ),
  ),
});

export type PermissionsConfig = z.infer<typeof permissionsSchema>;

/** Per-skill modes, set by the operator with name globs (`server/access/modes.ts` says what each one does). */
export const SKILL_MODES = ['pinned', 'auto', 'search', 'manual', 'off'] as const;
export type SkillMode = (typeof SKILL_MODES)[number];

const catalogSchema = z.strictObject({
  /** Tokens the catalog may take when the model's context window is unknown (default 4000). */
  budgetTokens: z.optional(z.int().check(z.positive())),
  /** Share of the model's context window the catalog may take, when the window is known (default 2). */
  budgetPercent: z.optional(z.number().check(z.positive(), z.lte(100))),
});

export type CatalogConfig = z.infer<typeof catalogSchema>;

const skillsSchema = z.strictObject({
  /** Skill-name globs to a mode (`"pdf-*": "pinned"`); the most specific pattern wins (see globs.ts). */
  modes: z.optional(z.record(text(), z.enum(SKILL_MODES))),
});

export const configFileSchema = z.strictObject({
  permissions: z.optional(permissionsSchema),
  catalog: z.optional(catalogSchema),
  skills: z.optional(skillsSchema),
  /** Watch the skill roots and reload on change (default true; SKILLCHAT_WATCH=0 turns it off). */
  watch: z.optional(z.boolean()),
  /** Replaces the default roots when given (precedence = order). Relative paths are relative to the app dir. */
  skillRoots: z.optional(z.array(z.union([text(), rootSchema]))),
  /** Added after the default roots, or before every root with `"precedence": "first"`. */
  extraSkillRoots: z.optional(z.array(z.union([text(), rootSchema]))),
  limits: z.optional(z.partial(limitsSchema)),
  install: z.optional(z.partial(installSchema)),
  database: z.optional(text()),
  /** Script sandbox, chat workspaces and the skills runtime (server/sandbox/config.ts). */
  sandbox: z.optional(z.partial(sandboxConfigSchema)),
  workspace: z.optional(z.partial(workspaceConfigSchema)),
  runtime: z.optional(z.partial(runtimeConfigSchema)),
  /** Whether the model gets a shell in the chat's sandbox, for whom (server/sandbox/config.ts). */
  shell: z.optional(shellConfigSchema),
  /** MCP servers as a source of tools, in Claude Desktop's shape (server/mcp/config.ts). */
  mcpServers: z.optional(mcpServersSchema),
  mcp: z.optional(z.partial(mcpSettingsSchema)),
  /** Hosts each skill may reach from its runs, and the limits of that (server/egress/config.ts). */
  network: z.optional(networkConfigSchema),
  /** Secrets the egress proxy adds to requests, or runs get as variables, per skill (server/egress/config.ts). */
  secrets: z.optional(secretsConfigSchema),
  server: z.optional(
    z.strictObject({
      host: z.optional(text()),
      port: z.optional(z.int().check(z.gte(1), z.lte(65535))),
      allowedHosts: z.optional(z.array(text())),
      /** On SIGTERM/SIGINT, how long running answers may go on before they are stored as interrupted. */
      shutdownGraceMs: z.optional(z.int().check(z.gte(0), z.lte(60_000))),
    }),
  ),
});

export type ConfigFile = z.infer<typeof configFileSchema>;
// The schema's output and the hand-written type must stay the same: either way round is a compile error.
type SameType<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const limitsMatch: SameType<z.infer<typeof limitsSchema>, Limits> = true;
void limitsMatch;

export interface AppConfig {
  appDir: string;
  home: string;
  roots: SkillRoot[];
  limits: Limits;
  databasePath: string;
  /** `DATABASE_URL`: a `postgres://` URL selects PostgreSQL instead of the SQLite file. */
  databaseUrl?: string;
  server: { host: string; port: number; allowedHosts: string[]; shutdownGraceMs: number };
  permissions: PermissionsConfig;
  catalog: CatalogConfig;
  skills: { modes: Record<string, SkillMode> };
  watch: boolean;
  /** Installing skills from archives, git and indexes (server/install). */
  install: InstallConfig;
  /** Sandbox backend and limits, workspace folder and caps, runtime folder and packages. */
  execution: ExecutionConfig;
  /** MCP servers the operator configured, and the client's time limits and permission rules (server/mcp/). */
  mcp: McpConfig;
  /** Network grants and secrets of skills' runs (server/egress/). */
  egress: EgressConfig;
  /** Where the configuration came from, for diagnostics. */
  configFile: string | null;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Whether `dir` is a git repository's root (a `.git` folder, or the `.git` file of a worktree or submodule). */
export function isGitRoot(dir: string): boolean {
  return fs.existsSync(path.join(dir, '.git'));
}

/**
 * The spec's client guide: `.agents/skills` from the app up to the enclosing git repository's root (or to the
 * filesystem root outside a repository), with `.claude/skills` beside each for compatibility, then the same two in
 * the home folder. At each level `.agents/skills` comes first, so it wins a name collision.
 */
export function defaultRoots(
  appDir: string,
  home: string,
  isRepoRoot: (dir: string) => boolean = isGitRoot,
): SkillRoot[] {
  const roots: SkillRoot[] = [{ path: path.join(appDir, '.skills'), scope: 'project', kind: 'app' }];
  const userFolders = [path.join(home, '.agents', 'skills'), path.join(home, '.claude', 'skills')];
  let dir = path.resolve(appDir);
  for (;;) {
    for (const candidate of [path.join(dir, '.agents', 'skills'), path.join(dir, '.claude', 'skills')]) {
      // The home folder's are the user roots below; listing them twice would be a self-collision.
      if (!userFolders.includes(candidate)) roots.push({ path: candidate, scope: 'project', kind: 'agents' });
    }
    const parent = path.dirname(dir);
    if (parent === dir || isRepoRoot(dir)) break;
    dir = parent;
  }
  for (const folder of userFolders) roots.push({ path: folder, scope: 'user', kind: 'user-agents' });
  roots.push({ path: path.join(home, '.skillchat', 'skills'), scope: 'user', kind: 'user-skillchat' });
  return roots;
}

function toRoot(entry: string | z.infer<typeof rootSchema>, appDir: string, home: string): SkillRoot {
  const raw = typeof entry === 'string' ? entry : entry.path;
  const expanded = raw === '~' ? home : raw.startsWith('~/') ? path.join(home, raw.slice(2)) : raw;
  const abs = path.resolve(appDir, expanded);
  if (typeof entry === 'string')
    return { path: abs, scope: abs.startsWith(home + path.sep) ? 'user' : 'project', kind: 'configured' };
  return {
    path: abs,
    scope: entry.scope,
    kind: 'configured',
    ...(entry.precedence ? { precedence: entry.precedence } : {}),
  };
}

/** Under Docker's 10 s stop timeout, with room to store what the cut answers had. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 5000;

function shutdownGrace(raw: string | undefined, fromFile: number | undefined): number {
  if (raw === undefined || raw === '') return fromFile ?? DEFAULT_SHUTDOWN_GRACE_MS;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 0 || ms > 60_000) {
    throw new ConfigError(`SKILLCHAT_SHUTDOWN_GRACE_MS must be 0-60000 milliseconds, got ${raw}`);
  }
  return ms;
}

/**
 * The app's configuration, loaded on first use and then kept for the process: the app (server/app.ts) and the
 * exposure check of `proxy.ts`, bundled apart, read this one load. A changed file takes a restart; a file that
 * fails to load is not kept, so the next caller reads it again.
 */
export function appConfig(): AppConfig {
  return processWide('config', () => loadConfig());
}

export interface LoadConfigOptions {
  appDir?: string;
  env?: Readonly<Record<string, string | undefined>>;
  home?: string;
}

/**
 * Environment overrides:
 * - SKILLCHAT_CONFIG: config file path (default `<app>/skillchat.config.json`, optional).
 * - SKILLCHAT_SKILL_ROOTS: roots separated by `path.delimiter` (`:`), replacing the default/config roots (the install
 *   root is still scanned).
 * - SKILLCHAT_DB: SQLite file (default `<app>/data/skillchat.db`).
 * - SKILLCHAT_HOST / PORT: bind address (default 127.0.0.1:3000).
 * - SKILLCHAT_ALLOWED_HOSTS: extra Host names allowed, comma-separated.
 * - SKILLCHAT_WATCH: `0` turns off watching the skill roots (live reload); `1` turns it on.
 * - SKILLCHAT_INSTALL_ROOT: where installed skills go (default `~/.skillchat/skills`, or the first root).
 * - SKILLCHAT_SHUTDOWN_GRACE_MS: how long running answers may finish on SIGTERM (default 5000, under Docker's 10 s).
 * - SKILLCHAT_SANDBOX: `auto` or `bwrap` (sandbox backend); SKILLCHAT_RUNTIME_DIR: the skills runtime.
 * - SKILLCHAT_SHELL: `off`, `ask` or `allow` (the model's shell in the chat's sandbox; overrides `shell.mode`).
 */
export function loadConfig(options: LoadConfigOptions = {}): AppConfig {
  const env = options.env ?? process.env;
  // turbopackIgnore: these paths are the operator's, read at run time; nothing here belongs in the build's trace.
  const appDir = path.resolve(/*turbopackIgnore: true*/ options.appDir ?? env.SKILLCHAT_APP_DIR ?? process.cwd());
  const home = options.home ?? env.SKILLCHAT_HOME ?? os.homedir();

  const explicitFile = env.SKILLCHAT_CONFIG;
  const configPath = path.resolve(appDir, explicitFile ?? CONFIG_FILE_NAME);
  let file: ConfigFile = {};
  let configFile: string | null = null;
  if (fs.existsSync(/*turbopackIgnore: true*/ configPath)) {
    let raw: unknown;
    try {
      raw = JSON.parse(fs.readFileSync(/*turbopackIgnore: true*/ configPath, 'utf8'));
    } catch (error) {
      throw new ConfigError(`${path.basename(configPath)}: not valid JSON (${(error as Error).message})`);
    }
    const parsed = configFileSchema.safeParse(raw);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
      throw new ConfigError(`${path.basename(configPath)}: ${issues}`);
    }
    file = parsed.data;
    configFile = configPath;
  } else if (explicitFile) {
    throw new ConfigError(`SKILLCHAT_CONFIG names a file that does not exist: ${explicitFile}`);
  }

  let roots: SkillRoot[];
  if (env.SKILLCHAT_SKILL_ROOTS) {
    roots = env.SKILLCHAT_SKILL_ROOTS.split(path.delimiter)
      .filter(Boolean)
      .map((p) => toRoot(p, appDir, home));
  } else if (file.skillRoots) {
    roots = file.skillRoots.map((r) => toRoot(r, appDir, home));
  } else {
    roots = defaultRoots(appDir, home);
  }
  const extras = (file.extraSkillRoots ?? []).map((extra) => toRoot(extra, appDir, home));
  roots = [
    ...extras.filter((r) => r.precedence === 'first'),
    ...roots,
    ...extras.filter((r) => r.precedence !== 'first'),
  ];
  const install = installRoot(env, file, roots, appDir, home);
  // Installed skills are always scanned: a root list that leaves the install root out (SKILLCHAT_SKILL_ROOTS replaces
  // every root) gets it back last, so an install never lands where nothing reads it.
  if (!roots.some((r) => r.path === install)) roots.push({ path: install, scope: 'user', kind: 'user-skillchat' });

  const portRaw = env.PORT ?? env.SKILLCHAT_PORT;
  const port = portRaw ? Number(portRaw) : (file.server?.port ?? 3000);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new ConfigError(`PORT must be 1-65535, got ${portRaw}`);

  const databasePath = path.resolve(appDir, env.SKILLCHAT_DB ?? file.database ?? path.join('data', 'skillchat.db'));
  return {
    appDir,
    home,
    roots,
    limits: { ...DEFAULT_LIMITS, ...file.limits },
    databasePath,
    ...(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : {}),
    server: {
      host: env.SKILLCHAT_HOST ?? file.server?.host ?? '127.0.0.1',
      port,
      allowedHosts: [
        ...(file.server?.allowedHosts ?? []),
        ...(env.SKILLCHAT_ALLOWED_HOSTS?.split(',').map((h) => h.trim()) ?? []),
      ].filter(Boolean),
      shutdownGraceMs: shutdownGrace(env.SKILLCHAT_SHUTDOWN_GRACE_MS, file.server?.shutdownGraceMs),
    },
    permissions: file.permissions ?? {},
    catalog: file.catalog ?? {},
    skills: { modes: file.skills?.modes ?? {} },
    watch:
      env.SKILLCHAT_WATCH !== undefined && env.SKILLCHAT_WATCH !== ''
        ? env.SKILLCHAT_WATCH !== '0'
        : (file.watch ?? true),
    install: { ...installSchema.parse({}), ...file.install, root: install },
    execution: resolveExecutionConfig(file, appDir, path.dirname(databasePath), env),
    mcp: resolveMcpConfig(file),
    egress: resolveEgressConfig(file, appDir, path.dirname(databasePath)),
    configFile,
  };
}

/** Installs go to the user's skillchat folder by default: writable, and never the project's own tree. */
function installRoot(
  env: Readonly<Record<string, string | undefined>>,
  file: ConfigFile,
  roots: SkillRoot[],
  appDir: string,
  home: string,
): string {
  const configured = env.SKILLCHAT_INSTALL_ROOT || file.install?.root;
  if (configured) return toRoot(configured, appDir, home).path;
  const userRoot = roots.find((r) => r.kind === 'user-skillchat') ?? roots[0];
  return userRoot?.path ?? path.join(home, '.skillchat', 'skills');
}
