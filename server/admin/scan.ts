/** The scan sections of /admin: roots in precedence order, problems (most severe first) and name collisions. */
import type { DiscoveryResult, RootKind, Severity, SkillScope } from '../skills/types';
import { type PathDisplay, relativeToRoot } from './paths';

export interface AdminRoot {
  /** 1 = highest precedence. */
  precedence: number;
  path: string;
  scope: SkillScope;
  kind: RootKind;
  exists: boolean;
  skillCount: number;
}

export interface AdminProblem {
  severity: Severity;
  code: string;
  message: string;
  hint: string | null;
  /** The root the problem was found under, as displayed; null for problems not tied to a root. */
  root: string | null;
  /** The skill folder relative to its root (`pdf`, `team/pdf`); null for root-level problems. */
  skillPath: string | null;
}

export interface AdminCollision {
  name: string;
  winner: string;
  shadowed: string[];
}

export function buildRoots(scan: DiscoveryResult, display: PathDisplay): AdminRoot[] {
  return scan.roots.map((r, i) => ({
    precedence: i + 1,
    path: display.root(r.path),
    scope: r.scope,
    kind: r.kind,
    exists: r.exists,
    skillCount: r.skillCount,
  }));
}

const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

export function buildProblems(scan: DiscoveryResult, display: PathDisplay): AdminProblem[] {
  const problems: AdminProblem[] = scan.diagnostics.map((d) => ({
    severity: d.severity,
    code: d.code,
    message: display.text(d.message),
    hint: d.hint ? display.text(d.hint) : null,
    root: d.root ? display.root(d.root) : null,
    skillPath: d.skillDir && d.root ? (relativeToRoot(d.skillDir, d.root) ?? display.folder(d.skillDir)) : null,
  }));
  return problems.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
}

export function buildCollisions(scan: DiscoveryResult, display: PathDisplay): AdminCollision[] {
  return scan.collisions.map((c) => ({
    name: c.name,
    winner: display.folder(c.winner),
    shadowed: c.losers.map((l) => display.folder(l)),
  }));
}
