/**
 * The access resolver: the operator's policy and modes (config globs plus /admin overrides) bound once per process,
 * answering with one `SkillAccess` record per skill (access.ts). Nothing outside `server/access/` resolves a mode or
 * asks the permission policy.
 */
import type { AppConfig, SkillMode } from '../config';
import { KeptMap } from '../kept-map';
import type { Skill } from '../skills/types';
import { type AccessFacts, decideAccess, type InvokedBy, invocationFlags, type SkillAccess } from './access';
import { resolveMode } from './modes';
import { createPermissionPolicy } from './policy';

/** Distinct sets of switched-off skills kept per skill array: people mostly switch nothing, or the same few. */
const MAX_SWITCH_SETS = 64;

export type AccessConfig = Pick<AppConfig, 'roots' | 'appDir' | 'permissions'> & {
  skills?: { modes?: Record<string, SkillMode> };
};

export type AccessSkill = Pick<Skill, 'name' | 'root' | 'frontmatter' | 'origin'>;

export interface AccessOptions {
  /** Whether a grant ("always allow") holds for the skill's current content; unknown is `false`. */
  granted?: (name: string) => boolean;
  /** The person asking (their id); with `switchedOff`, their answer differs from the operator's. */
  person?: string;
  /** The skills the person switched off for themselves (`listDisabledSkills`); the operator's settings still win. */
  switchedOff?: ReadonlySet<string>;
}

/** Records by skill name. */
export type AccessMap = ReadonlyMap<string, SkillAccess>;

export interface AccessResolver {
  /**
   * Every skill's record. Without `granted`, kept per skill array and set of switched-off skills until the overrides
   * change: the same records (the same map) for every turn of every person with the same switches.
   */
  resolveAll(skills: readonly AccessSkill[], options?: AccessOptions): AccessMap;
  resolve(skill: AccessSkill, options?: AccessOptions & { how?: InvokedBy }): SkillAccess;
  /** Sets (or with null clears) a mode over the config. Held in memory; the admin route also stores it. */
  setModeOverride(name: string, mode: SkillMode | null): void;
}

export function createAccessResolver(config: AccessConfig): AccessResolver {
  const policy = createPermissionPolicy(config);
  const overrides = new Map<string, SkillMode>();
  /**
   * Per skill array (the registry's, until the next scan), per set of switched-off names: every person without
   * switches shares the operator's records, and people with the same switches share theirs. The person's id does not
   * enter a record, so it is not part of the key. Emptied when an override changes.
   */
  let cache = new WeakMap<readonly AccessSkill[], KeptMap<string, AccessMap>>();

  const facts = (skill: AccessSkill, options: AccessOptions & { how?: InvokedBy } = {}): AccessFacts => ({
    name: skill.name,
    permission: policy.resolve(skill),
    mode: resolveMode(skill.name, config, overrides),
    flags: invocationFlags(skill.frontmatter),
    granted: options.granted?.(skill.name) ?? false,
    how: options.how ?? 'model',
    switchedOff: options.switchedOff?.has(skill.name) ?? false,
  });

  const resolve: AccessResolver['resolve'] = (skill, options) => decideAccess(facts(skill, options));

  return {
    resolve,
    resolveAll(skills, options = {}) {
      const all = (): AccessMap => new Map(skills.map((s) => [s.name, resolve(s, options)]));
      // A grant is looked up per skill at the time of asking: not kept.
      if (options.granted) return all();
      let bySwitches = cache.get(skills);
      if (!bySwitches) {
        bySwitches = new KeptMap(MAX_SWITCH_SETS);
        cache.set(skills, bySwitches);
      }
      const switchedOff = options.switchedOff?.size ? JSON.stringify([...options.switchedOff].sort()) : '';
      return bySwitches.getOrSet(switchedOff, all);
    },
    setModeOverride(name, mode) {
      if (mode === null) overrides.delete(name);
      else overrides.set(name, mode);
      cache = new WeakMap();
    },
  };
}
