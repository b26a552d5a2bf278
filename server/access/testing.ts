/** For tests of the modules that read access records: records as the resolver gives them for allowed skills. */
import type { SkillMode } from '../config';
import { decideAccess, type SkillAccess } from './access';

export function recordsForModes(modes: Record<string, SkillMode>): Map<string, SkillAccess> {
  return new Map(
    Object.entries(modes).map(([name, mode]) => [
      name,
      decideAccess({
        name,
        permission: { permission: 'allow', reason: 'test' },
        mode: { mode, source: 'config', pattern: name, configMode: mode },
      }),
    ]),
  );
}
