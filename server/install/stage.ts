/**
 * From an unpacked source to a skill folder ready to go live: find the folder with SKILL.md (the top level, or the
 * one folder an archive wraps it in), load it with the same `loadSkill` discovery uses, and refuse it when the
 * skill would not load or its name is not a valid skill name. Runs in the staging area, so nothing is live yet.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Limits } from '../config';
import { FOLDER_NAME_CODES } from '../skills/load/diagnostics';
import { hiddenTextDiagnostic, mayHaveHiddenText, scanHiddenText } from '../skills/load/hidden-text';
import { findSkillFile, loadSkill } from '../skills/load/skill-file';
import type { Diagnostic } from '../skills/types';
import { type ArchiveEntry, InstallError, type InstallProblem, problem } from './problems';

export interface StagedSkill {
  name: string;
  description: string;
  /** The staged folder, named after the skill, inside the staging area. */
  dir: string;
  /** Warnings and infos from loading (and hidden text in resources): shown, not blocking. */
  diagnostics: Diagnostic[];
}

/** The folder holding SKILL.md: the source itself, or its only subfolder. */
async function locateSkillDir(unpacked: string): Promise<string> {
  if (findSkillFile(unpacked)) return unpacked;
  const children = (await fs.promises.readdir(unpacked, { withFileTypes: true })).filter((d) => d.name !== '.git');
  if (children.length === 1 && children[0]!.isDirectory()) {
    const inner = path.join(unpacked, children[0]!.name);
    if (findSkillFile(inner)) return inner;
  }
  throw new InstallError('invalid', [
    problem('skill-file-missing', 'No SKILL.md at the top level or in a single top-level folder'),
  ]);
}

function refusal(diagnostics: Diagnostic[]): InstallProblem[] {
  return diagnostics
    .filter((d) => d.severity === 'error' || FOLDER_NAME_CODES.has(d.code))
    .map((d) => problem(d.code, `SKILL.md: ${d.message}`));
}

function strip(d: Diagnostic): Diagnostic {
  const { skillDir: _dir, root: _root, ...rest } = d;
  return rest;
}

/** Looks for text a reader cannot see in the skill's other text files (SKILL.md is checked by loadSkill). */
async function scanResources(dir: string, entries: readonly ArchiveEntry[], block: boolean): Promise<Diagnostic[]> {
  const found: Diagnostic[] = [];
  for (const entry of entries) {
    if (entry.kind !== 'file' || /(^|\/)skill\.md$/i.test(entry.path)) continue;
    const file = path.join(dir, entry.path);
    let bytes: Buffer;
    try {
      bytes = await fs.promises.readFile(file);
    } catch {
      continue;
    }
    if (!mayHaveHiddenText(bytes) || bytes.includes(0)) continue; // a NUL byte: binary, not text
    const d = hiddenTextDiagnostic(entry.path, scanHiddenText(bytes.toString('utf8')), block ? 'error' : 'warning');
    if (d) found.push(d);
  }
  return found;
}

/**
 * Validates the unpacked source and moves the skill folder to `<staging>/<name>`. `entries` are the source's
 * entries relative to `unpacked` (for the resource scan).
 */
export async function stageSkill(
  unpacked: string,
  staging: string,
  entries: readonly ArchiveEntry[],
  limits: Limits,
): Promise<StagedSkill> {
  const found = await locateSkillDir(unpacked);
  const options = { root: staging, scope: 'user' as const, relDir: '', limits };
  const first = await loadSkill(found, options);
  const problems = refusal(first.diagnostics);
  if (!first.skill || problems.length > 0) throw new InstallError('invalid', problems);

  const name = first.skill.name;
  const dir = path.join(staging, name);
  await fs.promises.rename(found, dir);
  // Loaded again under its final folder name, so name-mismatch and the rest read as they will once installed.
  const final = await loadSkill(dir, { ...options, relDir: name });
  const finalProblems = refusal(final.diagnostics);
  if (!final.skill || finalProblems.length > 0) throw new InstallError('invalid', finalProblems);

  const prefix = path.relative(unpacked, found).split(path.sep).join('/');
  const inside = entries
    .filter((e) => prefix === '' || e.path.startsWith(`${prefix}/`))
    .map((e) => ({ ...e, path: prefix === '' ? e.path : e.path.slice(prefix.length + 1) }));
  const hidden = await scanResources(dir, inside, limits.hiddenText === 'block');
  const blocked = hidden.filter((d) => d.severity === 'error');
  if (blocked.length > 0)
    throw new InstallError(
      'invalid',
      blocked.map((d) => problem(d.code, d.message)),
    );

  return {
    name,
    description: final.skill.description,
    dir,
    diagnostics: [...final.skill.diagnostics, ...hidden].map(strip),
  };
}
