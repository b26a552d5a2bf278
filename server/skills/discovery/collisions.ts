/**
 * Collision resolution and the result: loaded skills in precedence order -> the first of each name wins, later ones
 * are collisions (reported, not loaded) -> skills and collisions sorted by name, per-root counts, diagnostics in
 * order (roots, skills, collisions, lookalike names).
 */
import path from 'node:path';
import type { Collision, Diagnostic, DiscoveryResult, RootReport, Skill, SkillRoot } from '../types';
import { lookalikeDiagnostics } from './confusables';
import { type Candidate, compareNamesFast } from './walk';

/** Where a skill folder is, as people see it in their tree (the root as configured, not the realpath). */
function location(root: string, relDir: string): string {
  return relDir ? path.join(root, ...relDir.split('/')) : root;
}

/** The result of a scan (without its timing) from the candidates in precedence order and what loading each gave. */
export function resolveCollisions(
  roots: readonly SkillRoot[],
  inspected: ReadonlyArray<{ exists: boolean }>,
  rootDiagnostics: Diagnostic[],
  candidates: readonly Candidate[],
  loaded: ReadonlyArray<{ skill: Skill | null; diagnostics: Diagnostic[] }>,
): Omit<DiscoveryResult, 'scannedAt' | 'durationMs'> {
  const skillDiagnostics: Diagnostic[] = [];
  const winners = new Map<string, { skill: Skill; candidate: Candidate }>();
  const losers = new Map<string, Array<{ skill: Skill; candidate: Candidate }>>();
  loaded.forEach(({ skill, diagnostics }, i) => {
    skillDiagnostics.push(...diagnostics);
    if (!skill) return;
    const candidate = candidates[i]!;
    const winner = winners.get(skill.name);
    if (!winner) winners.set(skill.name, { skill, candidate });
    else losers.set(skill.name, [...(losers.get(skill.name) ?? []), { skill, candidate }]);
  });

  const collisions: Collision[] = [];
  const collisionDiagnostics: Diagnostic[] = [];
  for (const [name, shadowed] of losers) {
    const winner = winners.get(name)!;
    const winnerAt = location(winner.candidate.root.path, winner.candidate.relDir);
    collisions.push({ name, winner: winner.skill.dir, losers: shadowed.map((l) => l.skill.dir) });
    for (const loser of shadowed) {
      collisionDiagnostics.push({
        severity: 'warning',
        code: 'name-collision',
        message:
          `Skill '${name}' at ${location(loser.candidate.root.path, loser.candidate.relDir)} is shadowed by ` +
          `${winnerAt}, which takes precedence; this copy is not loaded.`,
        hint:
          loser.candidate.root.kind === 'configured' && !loser.candidate.root.precedence
            ? 'To use this collection\'s copy instead, give its extraSkillRoots entry "precedence": "first"; ' +
              '"last" keeps the other and records that you chose it. Or rename one of them.'
            : 'Rename one of them (folder and `name`), or remove the copy you do not want.',
        skillDir: loser.skill.dir,
        root: loser.candidate.root.path,
      });
    }
  }
  collisions.sort((a, b) => compareNamesFast(a.name, b.name));

  const sorted = [...winners.values()].map((w) => w.skill).sort((a, b) => compareNamesFast(a.name, b.name));
  // Added to copies: the cached Skill objects are shared with the next scan, which may no longer see the lookalike.
  const lookalikes = lookalikeDiagnostics(sorted);
  const skills = sorted.map((s) => {
    const extra = lookalikes.get(s.name);
    return extra ? { ...s, diagnostics: [...s.diagnostics, ...extra] } : s;
  });
  const counts = new Map<number, number>();
  for (const { candidate } of winners.values())
    counts.set(candidate.rootIndex, (counts.get(candidate.rootIndex) ?? 0) + 1);
  const rootReports: RootReport[] = roots.map((root, i) => ({
    ...root,
    exists: inspected[i]!.exists,
    skillCount: counts.get(i) ?? 0,
  }));

  return {
    skills,
    diagnostics: [...rootDiagnostics, ...skillDiagnostics, ...collisionDiagnostics, ...[...lookalikes.values()].flat()],
    collisions,
    roots: rootReports,
  };
}

/**
 * One line per configured root whose skills are hidden by same-named ones while the operator never said which should
 * win (no `precedence` on the root): adding a collection that shares names with ours is a choice, so start-up says so.
 */
export function undecidedShadowing(result: Pick<DiscoveryResult, 'collisions' | 'diagnostics' | 'roots'>): string[] {
  const rootOf = new Map<string, string>();
  for (const d of result.diagnostics)
    if (d.code === 'name-collision' && d.skillDir && d.root) rootOf.set(d.skillDir, d.root);
  const hidden = new Map<string, string[]>();
  for (const { name, losers } of result.collisions) {
    for (const dir of losers) {
      const root = result.roots.find((r) => r.path === rootOf.get(dir));
      if (root?.kind !== 'configured' || root.precedence) continue;
      hidden.set(root.path, [...(hidden.get(root.path) ?? []), name]);
    }
  }
  return [...hidden].map(
    ([root, names]) =>
      `${names.length} skill${names.length === 1 ? '' : 's'} of ${root} (${names.join(', ')}) ` +
      `${names.length === 1 ? 'is' : 'are'} hidden by same-named skills of a root before it; give that root ` +
      `"precedence": "first" in extraSkillRoots to use them instead, or "last" to keep it so.`,
  );
}
