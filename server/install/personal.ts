/**
 * A person's own skills (Claude.ai's "upload a skill", on a team server): installed on /settings through the one
 * install path (`installSkill`: the same entry checks, limits, loader, hidden-text scan), into that person's folder
 * (`skills/personal-root.ts`), and added to the shared skills for that person alone: their catalog, `/name`, slash
 * menu and starters. Nobody else's scan reads the folder. A personal skill may not take a shared skill's name, so
 * `/name` always means one skill; a shared skill installed later under the same name wins, and the personal one is
 * listed on /settings as hidden. The operator turns the feature off with `install.personalSkills: false`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AppConfig } from '../config';
import { AppError } from '../errors';
import type { Matcher } from '../skills/catalog/match';
import { discoverSkills } from '../skills/discovery/discovery';
import { compareNames } from '../skills/name-order';
import { isPlainUserId, personalSkillsBase, personalSkillsRoot } from '../skills/personal-root';
import type { SkillRegistry } from '../skills/registry';
import type { Skill } from '../skills/types';
import type { InstallMode } from './admin';
import { type InstallResult, type InstallSource, installSkill, uninstallSkill } from './install';
import { InstallError } from './problems';

export interface PersonalHost {
  config: Pick<AppConfig, 'install' | 'limits'>;
  registry: Pick<SkillRegistry, 'current' | 'matcher' | 'matcherWith'>;
}

/** The operator's switch (`install.personalSkills`, default on). */
export function personalSkillsOn(config: Pick<AppConfig, 'install'>): boolean {
  return config.install.personalSkills !== false;
}

function refuseWhenOff(config: Pick<AppConfig, 'install'>): void {
  if (!personalSkillsOn(config)) {
    throw new AppError(
      'forbidden:personal-skills',
      'Personal skills are turned off on this server (the operator set install.personalSkills to false)',
    );
  }
}

/** The skills in the person's folder, as discovery loads any root's (none when the feature is off). */
export async function loadPersonalSkills(config: PersonalHost['config'], userId: string): Promise<Skill[]> {
  if (!personalSkillsOn(config) || !isPlainUserId(userId)) return [];
  const root = personalSkillsRoot(config.install.root, userId);
  if (!fs.existsSync(/*turbopackIgnore: true*/ root)) return [];
  const found = await discoverSkills([{ path: root, scope: 'user', kind: 'configured' }], { limits: config.limits });
  return found.skills;
}

/** What one person may use: the shared skills and their own, with a matcher over both. */
export interface PersonSkills {
  skills: Skill[];
  matcher: Matcher;
  /** Their own skills in `skills` (a personal skill whose name a shared one took is left out). */
  personal: Skill[];
}

export async function skillsForPerson(host: PersonalHost, userId: string): Promise<PersonSkills> {
  const [{ skills: shared }, sharedMatcher, own] = await Promise.all([
    host.registry.current(),
    host.registry.matcher(),
    loadPersonalSkills(host.config, userId),
  ]);
  if (own.length === 0) return { skills: shared, matcher: sharedMatcher, personal: [] };
  const taken = new Set(shared.map((s) => s.name));
  const personal = own.filter((s) => !taken.has(s.name));
  if (personal.length === 0) return { skills: shared, matcher: sharedMatcher, personal };
  const skills = [...shared, ...personal].sort((a, b) => compareNames(a.name, b.name));
  return { skills, matcher: await host.registry.matcherWith(personal), personal };
}

/** One personal skill as /settings lists it. */
export interface PersonalSkillView {
  name: string;
  description: string;
  /** A shared skill took the name after this one was installed: it is not used until renamed. */
  hiddenByShared: boolean;
}

export async function listPersonalSkills(host: PersonalHost, userId: string): Promise<PersonalSkillView[]> {
  const [{ skills: shared }, own] = await Promise.all([
    host.registry.current(),
    loadPersonalSkills(host.config, userId),
  ]);
  const taken = new Set(shared.map((s) => s.name));
  return own.map((s) => ({ name: s.name, description: s.description, hiddenByShared: taken.has(s.name) }));
}

/** Installs (or previews, or updates) one of the person's skills; refuses a shared skill's name with a 409. */
export async function installPersonalSkill(
  host: PersonalHost,
  userId: string,
  source: InstallSource,
  mode: InstallMode,
): Promise<InstallResult> {
  refuseWhenOff(host.config);
  const { skills: shared } = await host.registry.current();
  return installSkill(source, {
    root: personalSkillsRoot(host.config.install.root, userId),
    install: host.config.install,
    limits: host.config.limits,
    mode,
    allowFileUrls: false,
    loadedElsewhere: (name) =>
      shared.some((s) => s.name === name)
        ? `A shared skill named "${name}" is on this server: give yours another name (its SKILL.md name and folder), so /${name} means one skill`
        : false,
  });
}

export async function uninstallPersonalSkill(host: PersonalHost, userId: string, name: string): Promise<void> {
  refuseWhenOff(host.config);
  try {
    await uninstallSkill(personalSkillsRoot(host.config.install.root, userId), name);
  } catch (error) {
    if (!(error instanceof InstallError)) throw error;
    if (error.kind === 'not-found') {
      throw new AppError('not_found:personal-skill', `You have no skill named "${name.slice(0, 80)}"`);
    }
    throw new AppError('bad_request:personal-skill', error.message);
  }
}

/** How many skills each person has in their folder (for /admin: counts only, never contents). */
export async function countPersonalSkills(config: Pick<AppConfig, 'install'>): Promise<Map<string, number>> {
  const base = personalSkillsBase(config.install.root);
  const counts = new Map<string, number>();
  const people = await fs.promises.readdir(/*turbopackIgnore: true*/ base, { withFileTypes: true }).catch(() => []);
  for (const person of people) {
    if (!person.isDirectory() || person.name.startsWith('.')) continue;
    const skills = await fs.promises
      .readdir(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ base, person.name), {
        withFileTypes: true,
      })
      .catch(() => []);
    counts.set(person.name, skills.filter((s) => s.isDirectory() && !s.name.startsWith('.')).length);
  }
  return counts;
}

/** Removes a person's folder with every skill in it (their account is being deleted). */
export async function deletePersonalSkills(installRoot: string, userId: string): Promise<void> {
  await fs.promises.rm(/*turbopackIgnore: true*/ personalSkillsRoot(installRoot, userId), {
    recursive: true,
    force: true,
  });
}
