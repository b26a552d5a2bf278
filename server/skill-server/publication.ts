/**
 * What skillchat publishes of one skill, to MCP clients (`/mcp`) and to installers (the well-known index): every
 * file of its folder with its size and `sha256:` digest, and the skill-level digest. Files are read through the one
 * confined reader (`readSkillResource`), so a link out of the folder, a FIFO or a device is never published.
 *
 * Kept per skill folder while nothing in it changes: a walk and a `stat` per file decide that (cheap), the bytes are
 * read and hashed again only when a file's size, time or inode moved. The bytes are not kept: a file is read again
 * when it is served, and its digest then checked against the publication.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KeptMap } from '../kept-map';
import { fileDigest, skillDigest } from '../skills/digests';
import { listSkillFiles } from '../skills/resources/files';
import { readSkillResource } from '../skills/resources/resources';
import type { Skill } from '../skills/types';

/** The MCP skills extension's limits per skill (SEP-2640), which the well-known index shares. */
export const PUBLISH_LIMITS = { files: 512, bytes: 16 * 1024 * 1024 } as const;
/** Folders deeper than this are not walked (skills keep references one level down; 6 is generous). */
const MAX_DEPTH = 8;

export interface PublishedFile {
  /** Relative to the skill folder, posix separators. The skill file is always `SKILL.md`. */
  path: string;
  /** The file's path on disk, relative to the skill folder (differs only for a `skill.md`). */
  diskPath: string;
  size: number;
  /** `sha256:<hex>` of the raw bytes. */
  digest: string;
  mediaType: string;
}

export interface PublishedSkill {
  name: string;
  description: string;
  /** The skill-level digest (agent-skills-discovery-rfc v0.2.0) over `files`. */
  digest: string;
  /** `SKILL.md` first, then the rest by path. */
  files: PublishedFile[];
}

export type Publication = { ok: true; skill: PublishedSkill } | { ok: false; name: string; reason: string };

type PublishSkill = Pick<Skill, 'name' | 'description' | 'dir' | 'file'>;

/**
 * Paths the well-known index can carry (printable ASCII without `\ ? # [ ]`, RFC v0.2.0) are the paths published
 * anywhere: one set of files for both ways in.
 */
const PUBLISHABLE_PATH = /^[\x20-\x7e]+$/;
const UNSAFE_CHARS = /[\\?#[\]]/;

async function signature(skill: PublishSkill, paths: readonly string[]): Promise<string> {
  const parts = await Promise.all(
    paths.map(async (p) => {
      const stat = await fs.promises
        .stat(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ skill.dir, p))
        .catch(() => null);
      return stat ? `${p}:${stat.size}:${stat.mtimeMs}:${stat.ino}` : `${p}:-`;
    }),
  );
  return `${skill.name}\n${skill.description}\n${parts.join('\n')}`;
}

async function build(skill: PublishSkill, paths: readonly string[]): Promise<Publication> {
  const fail = (reason: string): Publication => ({ ok: false, name: skill.name, reason });
  const skillFile = path.basename(skill.file);
  const files: PublishedFile[] = [];
  let total = 0;
  for (const diskPath of paths) {
    const published = diskPath === skillFile ? 'SKILL.md' : diskPath;
    if (!PUBLISHABLE_PATH.test(published) || UNSAFE_CHARS.test(published)) {
      return fail(`${JSON.stringify(published)}: file names must be printable ASCII without \\ ? # [ ]`);
    }
    const read = await readSkillResource(skill, diskPath, { maxBytes: PUBLISH_LIMITS.bytes, withBytes: true });
    if (!read.ok) {
      // Not a file the reader would give anyone (a link out of the folder, a FIFO): never published, and not a
      // reason to hold back the rest of the skill.
      if (read.code === 'outside-skill' || read.code === 'not-a-file' || read.code === 'not-found') continue;
      return fail(read.error);
    }
    const data = read.data ?? Buffer.alloc(0);
    if (data.length < read.bytes) return fail(`${published} is over ${PUBLISH_LIMITS.bytes} bytes`);
    total += data.length;
    if (total > PUBLISH_LIMITS.bytes) return fail(`the files are over ${PUBLISH_LIMITS.bytes} bytes in all`);
    files.push({
      path: published,
      diskPath,
      size: data.length,
      digest: fileDigest(data),
      mediaType: published === 'SKILL.md' ? 'text/markdown' : read.mediaType,
    });
  }
  if (!files.some((f) => f.path === 'SKILL.md')) return fail('its skill file could not be read');
  files.sort((a, b) => (a.path === 'SKILL.md' ? -1 : b.path === 'SKILL.md' ? 1 : a.path < b.path ? -1 : 1));
  return {
    ok: true,
    skill: { name: skill.name, description: skill.description, digest: skillDigest(files), files },
  };
}

export interface Publisher {
  publish(skill: PublishSkill): Promise<Publication>;
}

/** A publisher with its cache (one per process: `app/_lib/skill-server.ts`). */
export function createPublisher(options: { maxSkills?: number } = {}): Publisher {
  const kept = new KeptMap<string, { signature: string; publication: Promise<Publication> }>(options.maxSkills ?? 1000);
  return {
    async publish(skill) {
      const listing = await listSkillFiles(skill.dir, { maxFiles: PUBLISH_LIMITS.files + 1, maxDepth: MAX_DEPTH });
      if (listing.capped || listing.files.length > PUBLISH_LIMITS.files) {
        return { ok: false, name: skill.name, reason: `it has more than ${PUBLISH_LIMITS.files} files` };
      }
      const paths = listing.files.map((f) => f.path);
      const sig = await signature(skill, paths);
      const hit = kept.get(skill.dir);
      if (hit?.signature === sig) return hit.publication;
      const publication = build(skill, paths);
      kept.set(skill.dir, { signature: sig, publication });
      return publication;
    },
  };
}

/** The file at `published` path of a publication, read now; null when it is not published or no longer matches. */
export async function readPublishedFile(
  skill: PublishSkill,
  published: PublishedSkill,
  filePath: string,
): Promise<{ file: PublishedFile; data: Buffer; text: string | null } | null> {
  const file = published.files.find((f) => f.path === filePath);
  if (!file) return null;
  const read = await readSkillResource(skill, file.diskPath, { maxBytes: PUBLISH_LIMITS.bytes, withBytes: true });
  if (!read.ok || !read.data || read.data.length < read.bytes) return null;
  const text = read.binary ? null : read.content;
  return { file, data: read.data, text: text !== null && Buffer.from(text, 'utf8').equals(read.data) ? text : null };
}
