/**
 * Per-skill modes: how visible a skill is to the model and to people. Set by the operator in the config with
 * name globs, `{"skills":{"modes":{"pdf-*":"pinned","legacy-*":"off"}}}`:
 *
 * | mode     | catalog (model sees it up front) | skills_search | model may activate | `/name` and slash menu |
 * |----------|----------------------------------|---------------|--------------------|------------------------|
 * | `pinned` | always, whatever the budget      | yes           | yes                | yes                    |
 * | `auto`   | when it fits the budget (default)| yes           | yes                | yes                    |
 * | `search` | never                            | yes           | yes, once found    | yes                    |
 * | `manual` | never                            | no            | no (refused)       | yes                    |
 * | `off`    | never                            | no            | no                 | no (invisible)         |
 *
 * Which pattern wins (globs.ts, shared with permissions): an exact name beats any glob, then the pattern with more
 * literal characters (`pdf-reader-*` beats `pdf-*` beats `*`), and among equally specific patterns the one written
 * first. So `{"*":"search","pdf-*":"pinned"}` pins the pdf skills in either order.
 *
 * Overrides set on /admin beat the config. The access resolver (resolver.ts) holds them in memory; the admin route
 * also stores them in SQLite (`server/db/skill-modes.ts`) and the composition root loads them back at start.
 * Only `access/` reads this module: everything else reads the resolved access record.
 */
import type { SkillMode } from '../config';
import { compileGlobRules } from './globs';

export type { SkillMode } from '../config';

export const DEFAULT_MODE: SkillMode = 'auto';

export interface ModeConfig {
  skills?: { modes?: Record<string, SkillMode> };
}

export type ModeOverrides = ReadonlyMap<string, SkillMode>;

/** Where a skill's mode comes from: set on /admin, a config pattern, or neither (`auto`). */
export type ModeSource = 'override' | 'config' | 'default';

export interface ResolvedMode {
  mode: SkillMode;
  source: ModeSource;
  /** The config pattern that decides the mode without an override (`pdf-*`); null when none matches. */
  pattern: string | null;
  /** The mode the config gives it: what "config default" goes back to. */
  configMode: SkillMode;
}

type CompiledModes = (name: string) => { pattern: string; value: SkillMode } | null;
const compiled = new WeakMap<object, CompiledModes>();
const NO_RULES: CompiledModes = () => null;

/** The rules of a config, compiled once per rules object (configs are loaded once per process). */
function rulesOf(config: ModeConfig): CompiledModes {
  const rules = config.skills?.modes;
  if (!rules || Object.keys(rules).length === 0) return NO_RULES;
  let match = compiled.get(rules);
  if (!match) {
    match = compileGlobRules(rules);
    compiled.set(rules, match);
  }
  return match;
}

/** What most skills resolve to: one record shared by them all, not one per skill. */
const UNSET: ResolvedMode = Object.freeze({
  mode: DEFAULT_MODE,
  source: 'default',
  pattern: null,
  configMode: DEFAULT_MODE,
});

/** A skill's mode and its source: a run-time override, else the most specific config pattern, else `auto`. */
export function resolveMode(name: string, config: ModeConfig, overrides?: ModeOverrides): ResolvedMode {
  const hit = rulesOf(config)(name);
  const configMode = hit?.value ?? DEFAULT_MODE;
  const pattern = hit?.pattern ?? null;
  const override = overrides?.get(name);
  // An override equal to the config's mode still counts as one: going back to the config is a separate choice.
  if (override !== undefined) return { mode: override, source: 'override', pattern, configMode };
  if (!hit) return UNSET;
  return { mode: configMode, source: 'config', pattern, configMode };
}

/** Candidates for the catalog the model sees up front. */
export function listedInCatalog(mode: SkillMode): boolean {
  return mode === 'pinned' || mode === 'auto';
}

/** Found by `skills_search`. */
export function searchable(mode: SkillMode): boolean {
  return mode === 'pinned' || mode === 'auto' || mode === 'search';
}

/** The model may call `skills_activate` with it (a `search` skill once the search has shown it). */
export function modelMayActivate(mode: SkillMode): boolean {
  return searchable(mode);
}

/** A person may invoke it with `/name`, and the slash menu offers it. */
export function userInvocable(mode: SkillMode): boolean {
  return mode !== 'off';
}
