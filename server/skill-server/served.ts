/**
 * Which skills a person is served by skillchat as a skill server (`/mcp`, the well-known index): the ones their
 * access record says they may use (`usable`: not `off`, not denied, not switched off by them) and that are not
 * hidden from the catalog (`manual` mode, `disable-model-invocation`: the agent on the other end would offer them to
 * its model, which the operator or the skill said not to). The operator's settings and the person's own switches
 * decide, exactly as in a chat (server/access/).
 */
import { personalAccess } from '../access/personal';
import type { AccessResolver } from '../access/resolver';
import type { Database } from '../db';
import { processWide } from '../process-wide';
import type { Skill } from '../skills/types';
import type { Publication, PublishedSkill, Publisher } from './publication';

export interface SkillServerDeps {
  registry: { current(): Promise<{ skills: Skill[] }> };
  access: Pick<AccessResolver, 'resolveAll'>;
  db: Database;
  publisher: Publisher;
  /** Where a skill that cannot be published is reported (once per skill and reason). Default: console.warn. */
  warn?: (message: string) => void;
}

export interface ServedSkill {
  skill: Skill;
  published: PublishedSkill;
}

// Once per process, though `/mcp` and the well-known routes are separate bundles.
const warned = processWide('skill-server-warnings', () => new Set<string>());

function report(deps: SkillServerDeps, publication: Extract<Publication, { ok: false }>): void {
  const message = `skill server: "${publication.name}" is not published: ${publication.reason}`;
  if (warned.has(message)) return;
  if (warned.size > 10_000) warned.clear();
  warned.add(message);
  (deps.warn ?? ((m: string) => console.warn(`[skillchat] ${m}`)))(message);
}

/** The skills `personId` may use, by name. */
async function usableSkills(deps: SkillServerDeps, personId: string): Promise<Skill[]> {
  const { skills } = await deps.registry.current();
  const records = deps.access.resolveAll(skills, await personalAccess(deps.db, personId));
  return skills.filter((s) => {
    const record = records.get(s.name);
    return record?.usable === true && record.catalog !== 'hidden';
  });
}

async function serve(deps: SkillServerDeps, skill: Skill): Promise<ServedSkill | null> {
  const publication = await deps.publisher.publish(skill);
  if (publication.ok) return { skill, published: publication.skill };
  report(deps, publication);
  return null;
}

/** Every skill served to `personId`, sorted by name. */
export async function servedSkills(deps: SkillServerDeps, personId: string): Promise<ServedSkill[]> {
  const served = await Promise.all((await usableSkills(deps, personId)).map((s) => serve(deps, s)));
  return served.filter((s) => s !== null).sort((a, b) => (a.skill.name < b.skill.name ? -1 : 1));
}

/** The skill `name` as served to `personId`, or null (no such skill, not theirs to use, or not publishable). */
export async function servedSkill(deps: SkillServerDeps, personId: string, name: string): Promise<ServedSkill | null> {
  const skill = (await usableSkills(deps, personId)).find((s) => s.name === name);
  return skill ? serve(deps, skill) : null;
}
