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
 * Overrides set at run time (`setModeOverride`, from the admin page) beat the config. The registry holds them in
 * memory; the admin route also stores them in SQLite (`server/db/skill-modes.ts`) and `getApp()` loads them back at
 * start, so they outlive restarts.
 */
import type { SkillMode } from '../config';
import { compileGlobRules } from './globs';

export { SKILL_MODES, type SkillMode } from '../config';

export const DEFAULT_MODE: SkillMode = 'auto';

export interface ModeConfig {
  skills?: { modes?: Record<string, SkillMode> };
}

export type ModeOverrides = ReadonlyMap<string, SkillMode>;

const compiled = new WeakMap<object, (name: string) => SkillMode>();

/** The rules of a config, compiled once per rules object (configs are loaded once per process). */
function rulesOf(config: ModeConfig): (name: string) => SkillMode {
  const rules = config.skills?.modes;
  if (!rules || Object.keys(rules).length === 0) return () => DEFAULT_MODE;
  let resolve = compiled.get(rules);
  if (!resolve) {
    const match = compileGlobRules(rules);
    resolve = (name) => match(name)?.value ?? DEFAULT_MODE;
    compiled.set(rules, resolve);
  }
  return resolve;
}

/** A skill's mode: a run-time override, else the most specific config pattern, else `auto`. */
export function resolveMode(name: string, config: ModeConfig, overrides?: ModeOverrides): SkillMode {
  return overrides?.get(name) ?? rulesOf(config)(name);
}

/** Every skill's mode, by name. */
export function resolveModes(
  skills: ReadonlyArray<{ name: string }>,
  config: ModeConfig,
  overrides?: ModeOverrides,
): Map<string, SkillMode> {
  const rules = rulesOf(config);
  return new Map(skills.map((s) => [s.name, overrides?.get(s.name) ?? rules(s.name)]));
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

/** `modes.get(name)`, defaulting to `auto` for skills the map does not know. */
export function modeIn(modes: ReadonlyMap<string, SkillMode> | undefined, name: string): SkillMode {
  return modes?.get(name) ?? DEFAULT_MODE;
}
