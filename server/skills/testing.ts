/** For tests that need loaded skills without files: a `Skill` as discovery gives it, for a folder under `root`. */
import type { Skill } from './types';

export function skillRecord(name: string, root: string, extra: Partial<Skill> = {}): Skill {
  return {
    name,
    description: `Does ${name} things.`,
    dir: `${root}/${name}`,
    file: `${root}/${name}/SKILL.md`,
    root,
    relDir: name,
    scope: 'project',
    frontmatter: { name, description: `Does ${name} things.` },
    size: 100,
    mtimeMs: 0,
    diagnostics: [],
    ...extra,
  };
}
