/**
 * The skills engine's data. Everything here is plain data so the CLI, tests, route handlers and the admin page
 * can share it. Absolute paths stay on the server: anything sent to a browser goes through `redact` helpers.
 */

/**
 * - `error`: the skill was not loaded (no readable SKILL.md, unparseable frontmatter, no description).
 * - `warning`: the skill was loaded but breaks the spec (skills-ref would reject it), or a root/discovery problem.
 * - `info`: something was recovered or is worth knowing (e.g. an unquoted `: ` in a description was re-read quoted).
 */
export type Severity = 'error' | 'warning' | 'info';

export interface Diagnostic {
  severity: Severity;
  /** Stable machine code, kebab-case, from the closed list in diagnostics.ts. */
  code: DiagnosticCode;
  /** Human message. Uses skills-ref's exact wording where skills-ref has a message for the problem. */
  message: string;
  /** A short suggestion for fixing it, for the admin page. */
  hint?: string;
  /** Absolute path of the skill folder the problem is about (server-side only). */
  skillDir?: string;
  /** Absolute path of the root it was found under (server-side only). */
  root?: string;
}

/** A diagnostic as the browser receives it: never the server-side paths. */
export type DiagnosticView = Pick<Diagnostic, 'severity' | 'code' | 'message' | 'hint'>;

/** Known frontmatter fields, copied key by key (never `Object.assign` parsed YAML: `__proto__`). */
export interface SkillFrontmatter {
  name?: string;
  description?: string;
  license?: string;
  compatibility?: string;
  'allowed-tools'?: string;
  metadata?: Record<string, string>;
  /** Extensions (arguments.ts): shown in the slash menu / appended to the description in the catalog. */
  'argument-hint'?: string;
  when_to_use?: string;
  /** Extensions (server/access): `true` keeps the model from activating it; `false` keeps it out of `/name`. */
  'disable-model-invocation'?: boolean;
  'user-invocable'?: boolean;
}

import type { SkillRoot, SkillScope } from '../config';
import type { DiagnosticCode } from './load/diagnostics';

export type { RootKind, SkillRoot, SkillScope } from '../config';

export interface RootReport extends SkillRoot {
  exists: boolean;
  skillCount: number;
}

export interface Skill {
  /** Effective name: frontmatter `name` (trimmed, NFKC) when it is a non-empty string, else the folder name. */
  name: string;
  description: string;
  /** Absolute real path of the skill folder. */
  dir: string;
  /** Absolute path of the skill file (`SKILL.md`, or `skill.md` when only that exists). */
  file: string;
  /** Absolute path of the root it was found under, and the folder's path relative to it (posix separators). */
  root: string;
  relDir: string;
  scope: SkillScope;
  frontmatter: SkillFrontmatter;
  /** Size and mtime of the skill file when it was parsed: the rescan cache key. */
  size: number;
  mtimeMs: number;
  /** Problems with this skill that did not stop it loading. */
  diagnostics: Diagnostic[];
  /** Absent for a folder skill; an MCP server's served skill says where it comes from (server/mcp/skills.ts). */
  origin?: SkillOrigin;
}

/** A file of a served skill fetched, verified and written into its local copy, or why not. */
export type ServedFileResult = { ok: true } | { ok: false; code: 'not-found' | 'unreadable'; error: string };

/**
 * A skill served by an MCP server (skills extension). Its identity is (server, uri), never the name alone. `dir` is
 * the host's local copy (`<data>/mcp-skills/<label>/<sha256(uri)>/<name>`), filled from verified bytes only when a
 * file is needed: `files` fetches into it.
 */
export interface SkillOrigin {
  kind: 'mcp';
  /** The server's label in the config. */
  server: string;
  /** The entry's `SKILL.md` URI. */
  uri: string;
  /** The skill's own name (its frontmatter `name`); the Skill's `name` is `<server>:<name>`. */
  name: string;
  /** `resources: "dynamic"`: nothing to verify against, so never a standing grant. */
  dynamic: boolean;
  /** SHA-256 over the sorted `uri digest` lines of the entry's resources: what an "Always allow" is bound to. */
  resourcesHash: string | null;
  files: ServedSkillFiles;
}

export interface ServedSkillFiles {
  /** The files the entry lists (relative paths), SKILL.md included; empty for a dynamic skill. */
  list(): string[];
  /** Fetches one file (verified against its digest) into the local copy, unless the copy already has those bytes. */
  fetch(relPath: string): Promise<ServedFileResult>;
  /** Every listed file: before a script runs or the folder is mounted in the sandbox. */
  fetchAll(): Promise<ServedFileResult>;
}

export interface Collision {
  name: string;
  /** Skill folder that won (highest-precedence root, then first found). */
  winner: string;
  /** Every shadowed folder, in precedence order. */
  losers: string[];
}

export interface DiscoveryResult {
  /** Loaded skills after collision resolution, sorted by name. */
  skills: Skill[];
  /** Every diagnostic: per-skill ones (loaded and not loaded), root and collision ones. */
  diagnostics: Diagnostic[];
  collisions: Collision[];
  roots: RootReport[];
  /** When the scan ended (ms since epoch) and how long it took. */
  scannedAt: number;
  durationMs: number;
}
