/**
 * The skills table of /admin: one row per loaded skill (its mode and permission from its access record, whether the
 * catalog lists it, its use) and one per folder that failed to load, with the reasons.
 */
import path from 'node:path';
import type { ResolvedMode } from '../access/modes';
import type { AccessMap } from '../access/resolver';
import type { Permission } from '../config';
import { countTokens } from '../skills/catalog/catalog';
import { isProblem } from '../skills/load/diagnostics';
import type { DiscoveryResult, SkillScope } from '../skills/types';
import type { ActivationData } from './activations';
import { type PathDisplay, relativeToRoot } from './paths';

export type SkillStatus = 'ok' | 'warnings' | 'not-loaded';

/** A skill's mode and where it comes from (`override`, `config`, `default`), as the access resolver has it. */
export type AdminSkillMode = ResolvedMode;

export interface AdminSkillRow {
  name: string;
  description: string;
  /** Where the skill folder is, as displayed. */
  location: string;
  root: string;
  /** The folder inside its root (`pdf`, `team/pdf`). */
  relDir: string;
  scope: SkillScope;
  status: SkillStatus;
  /** Diagnostics about this skill (warnings and errors; info notes are not counted). */
  problemCount: number;
  /** Tokens of its full entry in the catalog; null when not loaded (it is not in the catalog). */
  catalogTokens: number | null;
  /** Whether the catalog the model receives lists it (its mode and the budget decide). */
  inCatalog: boolean;
  /** Its mode and where it comes from; null when not loaded or unknown (a failed folder has no trustworthy name). */
  mode: AdminSkillMode | null;
  activationCount: number;
  lastActivatedAt: number | null;
  /** Whether it may be activated without asking, and why; null when it was not loaded or unknown. */
  permission: { permission: Permission; reason: string } | null;
}

export interface AdminNotLoaded {
  /** The folder name: a skill that was not loaded has no trustworthy name. */
  name: string;
  location: string;
  reasons: string[];
}

/** The catalog entry of one skill, as `renderCatalog` writes it, for its token count. */
function entryTokens(skill: { name: string; description: string }): number {
  return countTokens(JSON.stringify({ name: skill.name, description: skill.description }));
}

export function buildSkillRows(input: {
  scan: DiscoveryResult;
  activations: Pick<ActivationData, 'bySkill'>;
  display: PathDisplay;
  listed: ReadonlySet<string>;
  access?: AccessMap;
}): { rows: AdminSkillRow[]; notLoaded: AdminNotLoaded[] } {
  const { scan, display, listed, access } = input;
  const countByName = new Map(input.activations.bySkill.map((c) => [c.skillName, c]));
  const problemsByDir = new Map<string, number>();
  for (const d of scan.diagnostics) {
    if (d.skillDir && isProblem(d)) problemsByDir.set(d.skillDir, (problemsByDir.get(d.skillDir) ?? 0) + 1);
  }

  const rows: AdminSkillRow[] = scan.skills.map((skill) => {
    const activation = countByName.get(skill.name);
    const problemCount = skill.diagnostics.filter((d) => isProblem(d)).length;
    const record = access?.get(skill.name);
    return {
      name: skill.name,
      description: skill.description,
      location: display.folder(skill.dir),
      root: display.root(skill.root),
      relDir: skill.relDir,
      scope: skill.scope,
      status: problemCount > 0 ? 'warnings' : 'ok',
      problemCount,
      catalogTokens: entryTokens(skill),
      inCatalog: listed.has(skill.name),
      mode: record?.mode ?? null,
      activationCount: activation?.count ?? 0,
      lastActivatedAt: activation ? activation.lastAt.getTime() : null,
      permission: record ? { permission: record.permission, reason: record.permissionReason } : null,
    };
  });

  // Skills that failed to load: their folders carry error diagnostics and appear in no skill and no collision.
  const shadowedDirs = new Set(scan.collisions.flatMap((c) => c.losers));
  const loadedDirs = new Set(scan.skills.map((s) => s.dir));
  const notLoadedByDir = new Map<string, { root: string | undefined; reasons: string[] }>();
  for (const d of scan.diagnostics) {
    if (d.severity !== 'error' || !d.skillDir || loadedDirs.has(d.skillDir) || shadowedDirs.has(d.skillDir)) continue;
    const entry = notLoadedByDir.get(d.skillDir) ?? { root: d.root, reasons: [] };
    entry.reasons.push(display.text(d.message));
    notLoadedByDir.set(d.skillDir, entry);
  }
  const notLoaded: AdminNotLoaded[] = [...notLoadedByDir].map(([dir, { reasons }]) => ({
    name: path.basename(dir),
    location: display.folder(dir),
    reasons,
  }));
  const scopeOfRoot = new Map(scan.roots.map((r) => [r.path, r.scope]));
  for (const [dir, { root }] of notLoadedByDir) {
    rows.push({
      name: path.basename(dir),
      description: '',
      location: display.folder(dir),
      root: root ? display.root(root) : '',
      relDir: (root && relativeToRoot(dir, root)) || path.basename(dir),
      scope: (root && scopeOfRoot.get(root)) || 'project',
      status: 'not-loaded',
      problemCount: problemsByDir.get(dir) ?? 0,
      catalogTokens: null,
      inCatalog: false,
      mode: null,
      activationCount: countByName.get(path.basename(dir))?.count ?? 0,
      lastActivatedAt: null,
      permission: null,
    });
  }
  return { rows, notLoaded };
}
