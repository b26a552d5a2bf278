/**
 * Skills that do not come from a folder walk: an MCP server's served skills (server/mcp/skills.ts). The registry
 * adds each source's current skills, diagnostics and root-like reports to the scan's result, never in place of a
 * folder skill: a source's skill whose name a folder skill already has is left out and reported as a collision.
 * Sources keep their own state and never make the registry wait: `current()` answers from what they hold.
 */
import { compareNames } from './name-order';
import type { Collision, Diagnostic, DiscoveryResult, RootReport, Skill } from './types';

export interface SkillSourceSnapshot {
  skills: readonly Skill[];
  diagnostics: readonly Diagnostic[];
  roots: readonly RootReport[];
  /** A source's own collisions (a served name next to a folder skill's plain name). */
  collisions: readonly Collision[];
}

export interface ExtraSkillSource {
  /** What the source holds now; the same object until it changes. Never waits. */
  snapshot(): SkillSourceSnapshot;
  /** Called whenever `snapshot()` would answer differently. Returns an unsubscribe function. */
  subscribe(listener: () => void): () => void;
}

/** The scan's result with every source's skills added (folder skills first, so they win a name). */
export function withSources(scan: DiscoveryResult, sources: readonly ExtraSkillSource[]): DiscoveryResult {
  const snapshots = sources.map((s) => s.snapshot());
  if (snapshots.every((s) => s.skills.length === 0 && s.diagnostics.length === 0 && s.roots.length === 0)) {
    return scan;
  }
  const taken = new Map(scan.skills.map((s) => [s.name, s]));
  const skills = [...scan.skills];
  const diagnostics = [...scan.diagnostics];
  const collisions = [...scan.collisions];
  for (const snapshot of snapshots) {
    diagnostics.push(...snapshot.diagnostics);
    collisions.push(...snapshot.collisions);
    for (const skill of snapshot.skills) {
      const winner = taken.get(skill.name);
      if (winner) {
        collisions.push({ name: skill.name, winner: winner.dir, losers: [skill.dir] });
        diagnostics.push({
          severity: 'warning',
          code: 'name-collision',
          message: `Skill '${skill.name}' served by ${skill.origin ? `mcp:${skill.origin.server}` : 'a source'} has the name of a skill already loaded; it is not loaded.`,
          skillDir: skill.dir,
          root: skill.root,
        });
        continue;
      }
      taken.set(skill.name, skill);
      skills.push(skill);
    }
  }
  collisions.push(...plainNameCollisions(scan.skills, skills, diagnostics));
  skills.sort((a, b) => compareNames(a.name, b.name));
  return {
    ...scan,
    skills,
    diagnostics,
    collisions,
    roots: [...scan.roots, ...snapshots.flatMap((s) => s.roots)],
  };
}

/**
 * A served skill's own name shared with a folder skill or another server's served skill: nothing is shadowed (the
 * served one is reached by its qualified name), but people should know why `/pdf` is not the server's `pdf`.
 */
function plainNameCollisions(folder: readonly Skill[], all: readonly Skill[], diagnostics: Diagnostic[]): Collision[] {
  const byPlain = new Map<string, Skill[]>();
  for (const skill of all) {
    if (!skill.origin) continue;
    byPlain.set(skill.origin.name, [...(byPlain.get(skill.origin.name) ?? []), skill]);
  }
  const folderByName = new Map(folder.map((s) => [s.name, s]));
  const found: Collision[] = [];
  for (const [name, served] of byPlain) {
    const local = folderByName.get(name);
    if (!local && served.length < 2) continue;
    const [first, ...rest] = served;
    const winner = local ?? first!;
    const others = local ? served : rest;
    found.push({ name, winner: winner.dir, losers: others.map((s) => s.dir) });
    for (const skill of others) {
      diagnostics.push({
        severity: 'info',
        code: 'name-collision',
        message:
          `Skill '${name}' served by mcp:${skill.origin!.server} has the name of ` +
          `${local ? `the folder skill '${name}'` : `a skill served by mcp:${first!.origin!.server}`}: ` +
          `nothing is shadowed, it is reached as /${skill.name}${local ? ` while /${name} stays the folder skill` : ''}.`,
        skillDir: skill.dir,
        root: skill.root,
      });
    }
  }
  return found;
}
