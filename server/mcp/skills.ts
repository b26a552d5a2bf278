/**
 * MCP servers as a source of skills: a connected server that declares the skills extension
 * (`io.modelcontextprotocol/skills`) contributes its skills to the registry (`registry.addSource`), so they reach the
 * catalog, the slash menu, search, activation, `skills_readResource` and the sandbox as folder skills do.
 *
 * - Identity is (server, uri). A served skill is named `<label>:<name>` (`team:pdf`), always: it never shadows a
 *   folder skill or another server's skill, its grants and activations never move to another skill when a folder
 *   skill of the same name appears, and people and the model see where it comes from. A plain name it shares with
 *   a folder skill or another server's skill is reported as a collision on /admin.
 * - Listing: `skills/list` through the SDK's `SkillsClient` (pages walked, entries checked) when the server
 *   connects, again when the listing's `ttlMs` has passed (in the background, on the next look), never while a turn
 *   waits. Each entry goes through the folder loader's rules (`validateMetadata`, extension fields, hidden text,
 *   instruction-like descriptions) from its `frontmatter`; its SKILL.md is verified against that frontmatter when it
 *   is read. Entries the SDK refuses, and a failed listing, are diagnostics under the root-like `mcp:<label>`.
 * - Files are fetched when first needed, verified, into the host's copy (skill-cache.ts).
 * - Trust: the operator configured the server; its skills get the `mcp` permission default (allow) unless
 *   `permissions.rules` say otherwise (`team:*`). "Always allow" is bound to the entry's resources
 *   (`resourcesHash`); a "dynamic" skill has none and never gets a standing grant. `allowed-tools` is shown, never
 *   obeyed, as for every skill.
 */
import path from 'node:path';
import type { Skill as McpSkill } from '@modelcontextprotocol/client/ext/skills';
import type { Limits } from '../config';
import { recogniseExtensions } from '../skills/load/extensions';
import { hiddenTextDiagnostic, scanHiddenText, stripHiddenText } from '../skills/load/hidden-text';
import { instructionLikeDiagnostic } from '../skills/load/instruction-like';
import { normalizeSkillName, pyStrip, validateMetadata } from '../skills/load/validate';
import type { ExtraSkillSource, SkillSourceSnapshot } from '../skills/sources';
import type { Diagnostic, RootReport, Skill, SkillFrontmatter } from '../skills/types';
import type { McpManager } from './manager';
import { resourcesHash, servedFiles, servedSkillDir, skillFolderName, skillsClientOf } from './skill-cache';

/** The SEP's limits per skill: more files or bytes than this and the entry is refused. */
export const SERVED_SKILL_LIMITS = { files: 512, bytes: 16 * 1024 * 1024 };
/** A listing without `ttlMs` is looked at again after this long; a shorter one no sooner than `MIN_TTL_MS`. */
const DEFAULT_TTL_MS = 5 * 60_000;
const MIN_TTL_MS = 1000;

export interface ServedSkillsOptions {
  /** `<data>/mcp-skills` (`servedSkillsDir(config)`). */
  dir: string;
  limits: Pick<Limits, 'hiddenText'>;
  /** Each `skills/list` and file read (the config's `mcp.timeoutMs`). */
  timeoutMs: number;
  log?: (line: string) => void;
  now?: () => number;
}

export interface ServedSkills extends ExtraSkillSource {
  /** Lists the server's skills again now; resolves when done (tests, a `list_changed`). */
  refresh(label: string): Promise<void>;
  close(): void;
}

/** The qualified name people type after `/` and the model activates: `<label>:<name>`. */
export function qualifiedName(label: string, name: string): string {
  return `${label}:${name}`;
}

/** `label:name` as its parts; null for a plain name. */
export function splitQualifiedName(name: string): { label: string; name: string } | null {
  const m = /^([a-z0-9][a-z0-9-]{0,30}):(.+)$/.exec(name);
  return m ? { label: m[1]!, name: m[2]! } : null;
}

interface Listing {
  skills: Skill[];
  diagnostics: Diagnostic[];
  /** When the listing's `ttlMs` runs out (a timer lists again then). */
  expiresAt: number;
}

interface ServerState {
  /** Bumped on every status change: a listing started before it is dropped. */
  generation: number;
  listing: Listing | null;
  refreshing: Promise<void> | null;
  /** The next look, when the listing's `ttlMs` has passed. */
  timer: NodeJS.Timeout | null;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function flag(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  return text === 'true' ? true : text === 'false' ? false : undefined;
}

/** The known fields, copied one by one (the entry is the server's JSON: never spread it). */
function copyFrontmatter(data: Record<string, unknown>): SkillFrontmatter {
  const frontmatter: SkillFrontmatter = {};
  for (const field of [
    'name',
    'description',
    'license',
    'compatibility',
    'allowed-tools',
    'argument-hint',
    'when_to_use',
  ] as const) {
    const value = str(data[field]);
    if (value !== undefined) frontmatter[field] = value;
  }
  for (const field of ['disable-model-invocation', 'user-invocable'] as const) {
    const value = flag(data[field]);
    if (value !== undefined) frontmatter[field] = value;
  }
  const metadata = data.metadata;
  if (metadata && typeof metadata === 'object' && !Array.isArray(metadata)) {
    const copy: Record<string, string> = Object.create(null);
    for (const [key, value] of Object.entries(metadata)) if (typeof value === 'string') copy[key] = value;
    frontmatter.metadata = copy;
  }
  return frontmatter;
}

export function createServedSkills(manager: McpManager, options: ServedSkillsOptions): ServedSkills {
  const log = options.log ?? ((line: string) => console.warn(line));
  const now = options.now ?? Date.now;
  const servers = new Map<string, ServerState>();
  const listeners = new Set<() => void>();
  let snapshot: SkillSourceSnapshot | null = null;
  let closed = false;

  const stateOf = (label: string) => {
    let state = servers.get(label);
    if (!state) {
      state = { generation: 0, listing: null, refreshing: null, timer: null };
      servers.set(label, state);
    }
    return state;
  };

  const changed = () => {
    snapshot = null;
    for (const listener of listeners) {
      try {
        listener();
      } catch {
        // A listener's failure is its own.
      }
    }
  };

  const rootOf = (label: string) => path.join(/*turbopackIgnore: true*/ options.dir, label);

  function toSkill(label: string, entry: McpSkill, add: (d: Diagnostic) => void): Skill | null {
    const folder = skillFolderName(entry.uri);
    const dir = servedSkillDir(options.dir, label, entry.uri);
    const root = rootOf(label);
    const at = (d: Diagnostic): Diagnostic => ({ ...d, skillDir: dir, root });
    const data = entry.frontmatter as Record<string, unknown>;
    const checks = recogniseExtensions(validateMetadata(data, folder), data).map(at);
    const frontmatter = copyFrontmatter(data);
    const failed = checks.some((d) => d.severity === 'error') || !frontmatter.description?.trim();
    if (entry.resources !== 'dynamic') {
      const bytes = entry.resources.reduce((sum, r) => sum + r.size, 0);
      if (entry.resources.length > SERVED_SKILL_LIMITS.files || bytes > SERVED_SKILL_LIMITS.bytes) {
        for (const d of checks) add(d);
        add(
          at({
            severity: 'error',
            code: 'mcp-skill-refused',
            message: `${entry.uri} lists ${entry.resources.length} files, ${bytes} bytes: more than a served skill may have (${SERVED_SKILL_LIMITS.files} files, 16 MiB); it is not loaded.`,
          }),
        );
        return null;
      }
    }
    if (failed) {
      for (const d of checks) add(d);
      return null;
    }
    const diagnostics = [...checks];
    const description = frontmatter.description!;
    const hidden = hiddenTextDiagnostic(
      'The description',
      scanHiddenText(description),
      options.limits.hiddenText === 'block' ? 'error' : 'warning',
    );
    if (hidden) {
      diagnostics.push(at(hidden));
      if (hidden.severity === 'error') {
        for (const d of diagnostics) add(d);
        return null;
      }
    }
    const instructionLike = instructionLikeDiagnostic({
      description: stripHiddenText(description),
      when_to_use: frontmatter.when_to_use === undefined ? undefined : stripHiddenText(frontmatter.when_to_use),
    });
    if (instructionLike) diagnostics.push(at(instructionLike));
    const dynamic = entry.resources === 'dynamic';
    if (dynamic) {
      diagnostics.push(
        at({
          severity: 'info',
          code: 'mcp-skill-dynamic',
          message: `${entry.uri} is dynamic (its server lists no files and digests): nothing can be verified, so it is never always allowed.`,
        }),
      );
    }
    const plain = normalizeSkillName(frontmatter.name ?? '') || folder;
    const name = qualifiedName(label, plain);
    const manifest = dynamic
      ? undefined
      : (entry.resources as { uri: string; size: number }[]).find((r) => r.uri === entry.uri);
    for (const d of diagnostics) add(d);
    return {
      name,
      description: pyStrip(description),
      dir,
      file: path.join(/*turbopackIgnore: true*/ dir, 'SKILL.md'),
      root,
      relDir: path.relative(root, dir).split(path.sep).join('/'),
      scope: 'project',
      frontmatter,
      size: manifest?.size ?? 0,
      mtimeMs: 0,
      diagnostics,
      origin: {
        kind: 'mcp',
        server: label,
        uri: entry.uri,
        name: plain,
        dynamic,
        resourcesHash: resourcesHash(entry),
        files: servedFiles({
          label,
          name,
          entry,
          dir,
          client: () => manager.client(label),
          timeoutMs: options.timeoutMs,
        }),
      },
    };
  }

  async function list(label: string, state: ServerState): Promise<void> {
    const generation = state.generation;
    const client = manager.client(label);
    if (!client) return;
    const reader = skillsClientOf(client);
    if (!reader.supported) {
      state.listing = { skills: [], diagnostics: [], expiresAt: Number.POSITIVE_INFINITY };
      return;
    }
    const diagnostics: Diagnostic[] = [];
    const skills: Skill[] = [];
    const root = rootOf(label);
    let ttlMs = DEFAULT_TTL_MS;
    try {
      const listing = await reader.list(undefined, { timeout: options.timeoutMs, maxTotalTimeout: options.timeoutMs });
      if (listing.ttlMs !== undefined) ttlMs = Math.max(MIN_TTL_MS, listing.ttlMs);
      for (const invalid of listing.invalid) {
        diagnostics.push({
          severity: 'warning',
          code: 'mcp-skill-refused',
          message: `Entry ${invalid.index}${invalid.uri ? ` (${invalid.uri})` : ''} of the skills list was refused: ${invalid.reason}`,
          root,
        });
      }
      for (const entry of listing.skills) {
        const skill = toSkill(label, entry, (d) => diagnostics.push(d));
        if (skill) skills.push(skill);
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      diagnostics.push({
        severity: 'warning',
        code: 'mcp-skills-failed',
        message: `Listing the skills of the MCP server "${label}" failed: ${message}`,
        hint: 'It is tried again when the server reconnects, or at the next look after a minute.',
        root,
      });
      ttlMs = 60_000;
      log(`[skillchat] MCP server "${label}": skills/list failed: ${message}`);
    }
    if (closed || generation !== state.generation) return;
    // Diagnostics quote the server (a refused entry's reason, its URI, an error): shown on /admin, read by no one
    // who could see hidden characters.
    const clean = (d: Diagnostic): Diagnostic => ({ ...d, message: stripHiddenText(d.message) });
    state.listing = {
      skills: skills.map((s) => ({ ...s, diagnostics: s.diagnostics.map(clean) })),
      diagnostics: diagnostics.map(clean),
      expiresAt: now() + ttlMs,
    };
    if (state.timer) clearTimeout(state.timer);
    state.timer = setTimeout(() => {
      state.timer = null;
      if (generation === state.generation) void refresh(label);
    }, ttlMs);
    state.timer.unref();
    changed();
  }

  function refresh(label: string): Promise<void> {
    const state = stateOf(label);
    if (!state.refreshing) {
      state.refreshing = list(label, state).finally(() => {
        state.refreshing = null;
      });
    }
    return state.refreshing;
  }

  const unsubscribe = manager.subscribe((label) => {
    const state = stateOf(label);
    state.generation++;
    state.refreshing = null;
    if (state.timer) clearTimeout(state.timer);
    state.timer = null;
    const connected = manager.client(label) !== null;
    // Not connected: its skills leave the catalog (their reads would fail) until it is back.
    if (state.listing) {
      state.listing = null;
      changed();
    }
    if (connected) void refresh(label);
  });
  // Servers connected before this source was made.
  for (const server of manager.connected()) void refresh(server.label);

  function build(): SkillSourceSnapshot {
    const skills: Skill[] = [];
    const diagnostics: Diagnostic[] = [];
    const roots: RootReport[] = [];
    for (const [label, state] of servers) {
      if (!state.listing) continue;
      if (state.listing.skills.length === 0 && state.listing.diagnostics.length === 0) continue;
      skills.push(...state.listing.skills);
      diagnostics.push(...state.listing.diagnostics);
      roots.push({
        path: rootOf(label),
        scope: 'project',
        kind: 'mcp',
        exists: true,
        skillCount: state.listing.skills.length,
      });
    }
    return { skills, diagnostics, roots, collisions: [] };
  }

  return {
    snapshot() {
      snapshot ??= build();
      return snapshot;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    refresh,
    close() {
      closed = true;
      unsubscribe();
      for (const state of servers.values()) if (state.timer) clearTimeout(state.timer);
    },
  };
}
