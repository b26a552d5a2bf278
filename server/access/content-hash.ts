/**
 * The content a grant is tied to: the skill file plus every script. "Always allow" holds while these bytes stay the
 * same; editing SKILL.md or a script means the next activation asks again. References and assets are left out on
 * purpose: they are read on request, and editing a README should not revoke consent. A served skill's grant is bound
 * to its whole resources list instead (the extension's rule): its digests say when anything changed.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isScriptPath, listSkillFiles } from '../skills/resources/files';
import type { Skill } from '../skills/types';

export async function skillContentHash(skill: Pick<Skill, 'dir' | 'file' | 'origin'>): Promise<string> {
  // A served skill: the entry's resources (every file's URI and digest), so any change on the server asks again.
  // A dynamic one has nothing to bind to: a hash no grant can ever have been stored with.
  if (skill.origin) return skill.origin.resourcesHash ?? `dynamic:${randomUUID()}`;
  const hash = createHash('sha256');
  const skillFile = path.relative(skill.dir, skill.file).split(path.sep).join('/');
  const { files } = await listSkillFiles(skill.dir, { maxFiles: 1000 });
  const hashed = [skillFile, ...files.map((f) => f.path).filter((p) => p !== skillFile && isScriptPath(p))];
  for (const rel of hashed) {
    const abs = path.join(skill.dir, rel);
    const stat = await fs.lstat(abs).catch(() => null);
    hash.update(`${rel}\0`);
    // A link is hashed by where it points, never followed: a link out of the folder must not be read here either.
    if (stat?.isSymbolicLink()) hash.update(`link:${await fs.readlink(abs).catch(() => '')}`);
    else if (stat?.isFile()) hash.update(await fs.readFile(abs));
    else hash.update('missing');
    hash.update('\0');
  }
  return hash.digest('hex');
}
