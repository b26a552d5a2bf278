/**
 * Which files of a skill folder the sandbox can run: regular files with a known interpreter (interpreter.ts),
 * anywhere in the folder. Links are never followed (a link to a script inside is the same script; a link out is
 * never run), and the walk is bounded so a huge or hostile folder costs little.
 */
import fs from 'node:fs';
import path from 'node:path';
import { interpreterFor } from './interpreter';

const MAX_ENTRIES = 10_000;
const MAX_DEPTH = 16;

/** Runnable files, relative posix paths, sorted; at most `limit`. A missing folder has none. */
export async function listSkillScripts(skillDir: string, options?: { limit?: number }): Promise<string[]> {
  const limit = options?.limit ?? Number.POSITIVE_INFINITY;
  const found: string[] = [];
  let seen = 0;
  const visit = async (rel: string, depth: number): Promise<void> => {
    const entries = await fs.promises
      .readdir(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ skillDir, rel), { withFileTypes: true })
      .catch(() => []);
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (found.length >= limit || ++seen > MAX_ENTRIES) return;
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory() && depth < MAX_DEPTH) await visit(child, depth + 1);
      else if (entry.isFile() && interpreterFor(child, '')) found.push(child);
    }
  };
  await visit('', 0);
  return found.sort();
}

/** Whether the skill ships anything the sandbox can run; stops at the first script found. */
export async function skillHasScripts(skillDir: string): Promise<boolean> {
  return (await listSkillScripts(skillDir, { limit: 1 })).length > 0;
}
