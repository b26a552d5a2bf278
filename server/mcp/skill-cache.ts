/**
 * The host's local copy of a served skill: `<data>/mcp-skills/<label>/<sha256(uri)>/<name>/...`, so the path says
 * which server and which entry it is, and the folder is named after the skill as a skill folder is. Only the host
 * writes it, and only bytes the SDK's `SkillsClient.read` verified (size and digest against the entry; SKILL.md's
 * frontmatter against the entry's), checked once more here before they are written. A file is fetched when it is
 * first needed (activation: SKILL.md; a read; a script run or a sandbox mount: every file) and fetched again only
 * when the copy's bytes no longer match the entry's digest. The sandbox sees the copy read-only (bind mounts);
 * discovery never walks into it (`own-folders.ts`).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { type Skill as McpSkill, SkillsClient, SkillVerificationError } from '@modelcontextprotocol/client/ext/skills';
import { stripHiddenText } from '../skills/load/hidden-text';
import { normaliseResourcePath } from '../skills/resources/resources';
import type { ServedFileResult, ServedSkillFiles } from '../skills/types';

const SCHEME = 'skill://';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** `skill://<skill-path>/SKILL.md` -> `skill://<skill-path>/`, the prefix every file URI of the skill starts with. */
export function skillBase(uri: string): string {
  return uri.slice(0, uri.lastIndexOf('/') + 1);
}

/** The skill path's last segment (what `frontmatter.name` must equal), decoded. */
export function skillFolderName(uri: string): string {
  const segments = skillBase(uri).slice(SCHEME.length).split('/').filter(Boolean);
  try {
    return decodeURIComponent(segments.at(-1) ?? '');
  } catch {
    return segments.at(-1) ?? '';
  }
}

/** A file URI of the skill as a path relative to its folder, or null when it is not one (another skill, `..`). */
export function relativeFileOf(base: string, uri: string): string | null {
  if (!uri.startsWith(base)) return null;
  let decoded: string;
  try {
    decoded = uri.slice(base.length).split('/').map(decodeURIComponent).join('/');
  } catch {
    return null;
  }
  const normalised = normaliseResourcePath(decoded);
  return normalised.ok && normalised.path === decoded ? normalised.path : null;
}

/** Where the copy of the skill at `uri` on server `label` lives. */
export function servedSkillDir(base: string, label: string, uri: string): string {
  return path.join(/*turbopackIgnore: true*/ base, label, sha256Hex(uri), skillFolderName(uri));
}

/**
 * What an "Always allow" of a served skill is bound to: every resource's URI and digest, sorted. A changed,
 * added or removed file changes it. Null for a dynamic skill, which has nothing to bind to.
 */
export function resourcesHash(entry: Pick<McpSkill, 'resources'>): string | null {
  if (entry.resources === 'dynamic') return null;
  const lines = entry.resources.map((r) => `${r.uri} ${r.digest}\n`).sort();
  return sha256Hex(lines.join(''));
}

async function fileDigestOnDisk(file: string): Promise<string | null> {
  try {
    return `sha256:${sha256Hex(await fs.readFile(/*turbopackIgnore: true*/ file))}`;
  } catch {
    return null;
  }
}

async function writeCopy(file: string, bytes: Uint8Array): Promise<void> {
  await fs.mkdir(/*turbopackIgnore: true*/ path.dirname(/*turbopackIgnore: true*/ file), { recursive: true });
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  await fs.writeFile(/*turbopackIgnore: true*/ temporary, bytes, { mode: 0o644 });
  await fs.rename(/*turbopackIgnore: true*/ temporary, file);
}

/** Files of an older listing that this one no longer has: the sandbox must not see them. */
async function pruneUnlisted(dir: string, listed: ReadonlyMap<string, unknown>): Promise<void> {
  const entries = await fs
    .readdir(/*turbopackIgnore: true*/ dir, { recursive: true, withFileTypes: true })
    .catch(() => []);
  for (const e of entries) {
    if (e.isDirectory()) continue;
    const rel = path.relative(dir, path.join(/*turbopackIgnore: true*/ e.parentPath, e.name)).split(path.sep).join('/');
    if (!listed.has(rel))
      await fs
        .rm(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ e.parentPath, e.name), { force: true })
        .catch(() => {});
  }
}

const readers = new WeakMap<Client, SkillsClient>();

/** One `SkillsClient` per SDK client (a reconnect makes a new client, so a new reader). */
export function skillsClientOf(client: Client): SkillsClient {
  let reader = readers.get(client);
  if (!reader) {
    reader = new SkillsClient(client, { skipInvalid: true });
    readers.set(client, reader);
  }
  return reader;
}

export interface ServedFilesOptions {
  label: string;
  /** The skill's qualified name, for messages. */
  name: string;
  entry: McpSkill;
  /** The copy's folder (`servedSkillDir`). */
  dir: string;
  /** The server's client now: a skill's reads go to its own server only. Null while it is not connected. */
  client: () => Client | null;
  timeoutMs: number;
}

export function servedFiles(options: ServedFilesOptions): ServedSkillFiles {
  const { label, name, entry, dir } = options;
  const base = skillBase(entry.uri);
  const listed = new Map<string, { uri: string; digest: string; size: number }>();
  if (entry.resources !== 'dynamic') {
    for (const resource of entry.resources) {
      const rel = relativeFileOf(base, resource.uri);
      if (rel !== null) listed.set(rel, resource);
    }
  }
  const pending = new Map<string, Promise<ServedFileResult>>();
  const from = `the MCP server "${label}"`;

  async function fetchOne(rel: string): Promise<ServedFileResult> {
    const resource = listed.get(rel);
    if (entry.resources !== 'dynamic' && !resource) {
      return {
        ok: false,
        code: 'not-found',
        error: `File "${rel}" is not part of skill "${name}" (as listed by ${from})`,
      };
    }
    const target = path.join(/*turbopackIgnore: true*/ dir, ...rel.split('/'));
    // The copy is reused while its bytes still match the entry's digest; a dynamic skill is read every time.
    if (resource && (await fileDigestOnDisk(target)) === resource.digest) return { ok: true };
    const client = options.client();
    if (!client)
      return {
        ok: false,
        code: 'unreadable',
        error: `${from} is not connected; "${rel}" of skill "${name}" cannot be read now`,
      };
    try {
      const file = await skillsClientOf(client).read(entry, rel, {
        timeout: options.timeoutMs,
        maxTotalTimeout: options.timeoutMs,
      });
      // Checked again here (the SDK already did): only bytes that match the listing are ever written.
      if (resource && (file.bytes.length !== resource.size || `sha256:${sha256Hex(file.bytes)}` !== resource.digest)) {
        throw new SkillVerificationError('digest', resource.uri, 'the bytes do not match the listed digest');
      }
      await writeCopy(target, file.bytes);
      return { ok: true };
    } catch (error) {
      await fs.rm(/*turbopackIgnore: true*/ target, { force: true }).catch(() => {});
      if (error instanceof SkillVerificationError) {
        return {
          ok: false,
          code: 'unreadable',
          error: `"${rel}" of skill "${name}" from ${from} failed verification (${error.reason}: ${error.message}); it was refused and not used`,
        };
      }
      const message = error instanceof Error ? error.message : String(error);
      return {
        ok: false,
        code: 'unreadable',
        error: `Reading "${rel}" of skill "${name}" from ${from} failed: ${message}`,
      };
    }
  }

  const fetch = (rel: string): Promise<ServedFileResult> => {
    let running = pending.get(rel);
    if (!running) {
      // An error quotes the server (a verification error quotes the frontmatter it sent): cleaned before the model.
      running = fetchOne(rel)
        .then((result) => (result.ok ? result : { ...result, error: stripHiddenText(result.error) }))
        .finally(() => pending.delete(rel));
      pending.set(rel, running);
    }
    return running;
  };

  return {
    list: () => [...listed.keys()].sort(),
    fetch,
    async fetchAll() {
      if (entry.resources === 'dynamic') return fetch('SKILL.md');
      await pruneUnlisted(dir, listed);
      for (const rel of listed.keys()) {
        const result = await fetch(rel);
        if (!result.ok) return result;
      }
      return { ok: true };
    },
  };
}
