/**
 * skillchat as an MCP server (Streamable HTTP, stateless: a fresh server per request) that declares the skills
 * extension (`io.modelcontextprotocol/skills`, SEP-2640) and serves the caller's skills: `skills/list` (paged),
 * `skills/get`, and every file with `resources/read` at `skill://<name>/<path>`, text as `text` and anything else
 * as a base64 `blob`. Each skill's `SKILL.md` is listed in `resources/list`, and its folder (`skill://<name>`) and
 * subfolders are read with `resources/directory/read` (`directoryRead`): both come from the publication, so they
 * name exactly the files `resources/read` serves. The SDK (`@modelcontextprotocol/server`) does the protocol; this
 * file is the `SkillSource`.
 *
 * The handler does no authentication: the route (`app/mcp/route.ts`) decides who is asking and passes the person in
 * `authInfo`; each request's server serves that person's skills and no one else's.
 */
import {
  type AuthInfo,
  createMcpHandler,
  type McpHttpHandler,
  McpServer,
  type Resource,
} from '@modelcontextprotocol/server';
import {
  DIRECTORY_MIME_TYPE,
  type Skill as McpSkill,
  type SkillReadResult,
  type SkillSource,
  SkillsExtension,
  skillEntry,
} from '@modelcontextprotocol/server/ext/skills';
import { type PublishedFile, readPublishedFile } from './publication';
import { type ServedSkill, type SkillServerDeps, servedSkill, servedSkills } from './served';

const SCHEME = 'skill://';
const PAGE_SIZE = 100;
/** Clients may reuse a listing this long (2026-07-28 `ttlMs`); private: it is one person's. */
const CACHE_HINT = { ttlMs: 30_000, cacheScope: 'private' as const };

/** Percent-encodes a path segment the way the SDK writes skill URIs (RFC 3986 pchar, minus a few it keeps). */
function encodeSegment(segment: string): string {
  return segment.replace(/[^\w!$&'()*+,.:;=@[\]|~-]/gu, (c) =>
    [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

export function skillUri(name: string, filePath: string): string {
  return `${SCHEME}${[name, ...filePath.split('/')].map(encodeSegment).join('/')}`;
}

/** The decoded segments after `skill://`; null for a query, a fragment, `.`, `..`, an empty segment or bad escapes. */
function skillUriSegments(uri: string): string[] | null {
  if (!uri.startsWith(SCHEME) || /[?#]/.test(uri)) return null;
  const segments: string[] = [];
  for (const raw of uri.slice(SCHEME.length).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (segment === '' || segment === '.' || segment === '..' || segment.includes('/')) return null;
    segments.push(segment);
  }
  return segments;
}

/** `skill://<name>/<path>` as name and path; null for anything else (a query, `..`, bad escapes). */
export function parseSkillUri(uri: string): { name: string; path: string } | null {
  const segments = skillUriSegments(uri);
  if (!segments || segments.length < 2) return null;
  return { name: segments[0]!, path: segments.slice(1).join('/') };
}

/** A skill's folder (`skill://<name>`, no trailing slash, as the SDK writes a skill's root) or a folder in it. */
export function skillDirectoryUri(name: string, dir: string): string {
  return `${SCHEME}${[name, ...(dir === '' ? [] : dir.split('/'))].map(encodeSegment).join('/')}`;
}

/** `skill://<name>` or `skill://<name>/<dir>` as name and folder (`''`: the skill's own); null as `parseSkillUri`. */
export function parseSkillDirectoryUri(uri: string): { name: string; dir: string } | null {
  const segments = skillUriSegments(uri);
  if (!segments || segments.length < 1) return null;
  return { name: segments[0]!, dir: segments.slice(1).join('/') };
}

/**
 * The direct children of folder `dir` of a publication, by URI: its files, and its subfolders as
 * `inode/directory`. Folders exist only as the published files imply them, so an empty folder, or one holding only
 * files that are never published (a link out of the skill), is not one. Null when `dir` is no published folder.
 */
export function directoryChildren(name: string, files: readonly PublishedFile[], dir: string): Resource[] | null {
  const prefix = dir === '' ? '' : `${dir}/`;
  const children = new Map<string, Resource>();
  for (const file of files) {
    if (!file.path.startsWith(prefix)) continue;
    const rest = file.path.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash === -1) {
      children.set(rest, { uri: skillUri(name, file.path), name: rest, mimeType: file.mediaType, size: file.size });
    } else {
      const sub = rest.slice(0, slash);
      if (!children.has(sub)) {
        children.set(sub, { uri: skillDirectoryUri(name, prefix + sub), name: sub, mimeType: DIRECTORY_MIME_TYPE });
      }
    }
  }
  if (dir !== '' && children.size === 0) return null;
  return [...children.values()].sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
}

/**
 * The extension's entry for a served skill. Its frontmatter is what the SDK's own YAML reader makes of `SKILL.md`
 * (`skillEntry`), so a client verifying with the same reader agrees; the resources are the publication's files.
 * Kept per publication (a changed skill is a new publication). Null when `SKILL.md` is outside that reader's YAML
 * subset or breaks the extension's rules (the skill is then not listed; the server log says why).
 */
const entries = new WeakMap<object, Promise<McpSkill | null>>();

function entryFor(served: ServedSkill, warn: (message: string) => void): Promise<McpSkill | null> {
  let entry = entries.get(served.published);
  if (!entry) {
    entry = (async () => {
      const manifest = await readPublishedFile(served.skill, served.published, 'SKILL.md');
      if (!manifest) return null;
      try {
        const base = await skillEntry(served.skill.name, { 'SKILL.md': manifest.data });
        return {
          ...base,
          resources: served.published.files.map((f) => ({
            uri: skillUri(served.skill.name, f.path),
            digest: f.digest,
            size: f.size,
          })),
        };
      } catch (error) {
        warn(`skill server: "${served.skill.name}" is not served over MCP: ${(error as Error).message}`);
        return null;
      }
    })();
    entries.set(served.published, entry);
  }
  return entry;
}

/** The `SkillSource` for one person's request. */
export function personSkillSource(deps: SkillServerDeps, personId: string): SkillSource {
  const warn = deps.warn ?? ((m: string) => console.warn(`[skillchat] ${m}`));
  const entryOf = (s: ServedSkill) => entryFor(s, warn);
  return {
    async list({ cursor }) {
      const all = await servedSkills(deps, personId);
      const after = cursor === undefined ? all : all.filter((s) => s.skill.name > cursor);
      const page = after.slice(0, PAGE_SIZE);
      const skills = (await Promise.all(page.map(entryOf))).filter((e) => e !== null);
      const last = page.at(-1);
      return { skills, ...(after.length > PAGE_SIZE && last ? { nextCursor: last.skill.name } : {}) };
    },
    async get(uri) {
      const parsed = parseSkillUri(uri);
      if (parsed?.path !== 'SKILL.md') return undefined;
      const served = await servedSkill(deps, personId, parsed.name);
      return (served && (await entryOf(served))) ?? undefined;
    },
    async read(uri): Promise<SkillReadResult | undefined> {
      const parsed = parseSkillUri(uri);
      if (!parsed) return undefined;
      const served = await servedSkill(deps, personId, parsed.name);
      if (!served) return undefined;
      const read = await readPublishedFile(served.skill, served.published, parsed.path);
      if (!read) return undefined;
      const mimeType = read.file.mediaType;
      return read.text !== null ? { text: read.text, mimeType } : { bytes: new Uint8Array(read.data), mimeType };
    },
    async readDirectory(uri, { cursor }) {
      const parsed = parseSkillDirectoryUri(uri);
      if (!parsed) return undefined;
      const served = await servedSkill(deps, personId, parsed.name);
      if (!served) return undefined;
      const children = directoryChildren(served.skill.name, served.published.files, parsed.dir);
      if (!children) return undefined;
      // The cursor is the last URI of the page before (children are sorted by URI).
      const after = cursor === undefined ? children : children.filter((c) => c.uri > cursor);
      const page = after.slice(0, PAGE_SIZE);
      const last = page.at(-1);
      return { resources: page, ...(after.length > PAGE_SIZE && last ? { nextCursor: last.uri } : {}) };
    },
    async listResources() {
      // Every skill's SKILL.md that skills/list lists (one listing, not paged: one entry per served skill).
      const listed = await Promise.all(
        (await servedSkills(deps, personId)).map(async (served): Promise<Resource | null> => {
          const entry = await entryOf(served);
          if (!entry) return null;
          const manifest = served.published.files.find((f) => f.path === 'SKILL.md');
          return {
            uri: entry.uri,
            name: entry.frontmatter.name,
            description: entry.frontmatter.description,
            mimeType: 'text/markdown',
            ...(manifest ? { size: manifest.size } : {}),
          };
        }),
      );
      return listed.filter((r) => r !== null);
    },
  };
}

/** What the route passes: the person the request acts for (`authInfo.extra.person`). */
export function personAuthInfo(personId: string, token: string | null): AuthInfo {
  return { token: token ?? '', clientId: personId, scopes: ['skills:read'], extra: { person: personId } };
}

export const SERVER_INFO = { name: 'skillchat', version: '0.1.0' };

/** The handler: one per process (`runtime.ts`); each request gets a server for the person in its `authInfo`. */
export function createSkillServerHandler(deps: SkillServerDeps): McpHttpHandler {
  return createMcpHandler(
    ({ authInfo }) => {
      const server = new McpServer(SERVER_INFO, {
        capabilities: { resources: {} },
        instructions: 'Agent Skills from skillchat: the skills this person may use. Files are read-only.',
      });
      const person = authInfo?.extra?.person;
      // Without a person (the route always passes one) nothing is served: an empty catalog, not everyone's.
      const source: SkillSource =
        typeof person === 'string'
          ? personSkillSource(deps, person)
          : {
              list: async () => ({ skills: [] }),
              get: async () => undefined,
              read: async () => undefined,
              // Declared here too, so every request's server declares the same capabilities.
              readDirectory: async () => undefined,
              listResources: async () => [],
            };
      new SkillsExtension({ source, cacheHint: CACHE_HINT }).attach(server);
      return server;
    },
    { onerror: (error) => console.warn(`[skillchat] mcp: ${error.message}`) },
  );
}
