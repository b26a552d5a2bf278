/** What an update changes, shown before it is applied: a unified diff of SKILL.md and the file list, compared by content. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { findSkillFile } from '../skills/load/skill-file';

export interface SkillUpdateDiff {
  /** Unified diff of SKILL.md (empty when it is unchanged). */
  skillFile: string;
  added: string[];
  removed: string[];
  changed: string[];
  unchanged: number;
}

/** Regular files under `dir` (posix relative paths) with their sha256; links and the rest are not followed. */
async function hashFiles(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const pending = [''];
  while (pending.length > 0) {
    const rel = pending.pop()!;
    for (const entry of await fs.promises.readdir(path.join(dir, rel), { withFileTypes: true })) {
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) pending.push(childRel);
      else if (entry.isFile()) {
        const bytes = await fs.promises.readFile(path.join(dir, childRel));
        files.set(childRel, createHash('sha256').update(bytes).digest('hex'));
      }
    }
  }
  return files;
}

async function readSkillText(dir: string): Promise<string> {
  const file = findSkillFile(dir);
  return file ? fs.promises.readFile(file, 'utf8') : '';
}

export async function diffSkillFolders(installedDir: string, stagedDir: string): Promise<SkillUpdateDiff> {
  const [before, after] = await Promise.all([hashFiles(installedDir), hashFiles(stagedDir)]);
  const added: string[] = [];
  const changed: string[] = [];
  let unchanged = 0;
  for (const [file, hash] of after) {
    const old = before.get(file);
    if (old === undefined) added.push(file);
    else if (old !== hash) changed.push(file);
    else unchanged++;
  }
  const removed = [...before.keys()].filter((file) => !after.has(file));
  const [oldText, newText] = await Promise.all([readSkillText(installedDir), readSkillText(stagedDir)]);
  const skillFile =
    oldText === newText ? '' : createTwoFilesPatch('installed/SKILL.md', 'update/SKILL.md', oldText, newText);
  return { skillFile, added: added.sort(), removed: removed.sort(), changed: changed.sort(), unchanged };
}
