/**
 * `skills_search`: how the model finds skills the catalog left out (budget, or `search` mode). Ranked by the same
 * matcher as the slash menu; skills hidden from the model (their access record) are never returned.
 */
import type { CatalogPresenceOf } from '../../access/presence';
import { stripHiddenText } from '../load/hidden-text';
import type { Matcher } from './match';

export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 50;

export interface SkillSearchHit {
  name: string;
  description: string;
  /** Relevance in [0, 1] (see match.ts). */
  score: number;
}

/**
 * Skills matching `query`, best first, at most `limit` (clamped to 1..MAX_SEARCH_LIMIT). A blank query finds
 * nothing: the model should say what it is looking for.
 */
/** The skills searched: a list, or a map by name (the turn's skill view already has one). */
export type SearchableSkills =
  | ReadonlyArray<{ name: string; description: string }>
  | ReadonlyMap<string, { name: string; description: string }>;

// By skill list: the registry hands every turn the same array until the next scan, and a map of 10,000 names was
// most of a search's cost.
const byNameCache = new WeakMap<object, ReadonlyMap<string, { name: string; description: string }>>();

function namesOf(skills: SearchableSkills): ReadonlyMap<string, { name: string; description: string }> {
  if (!Array.isArray(skills)) return skills as ReadonlyMap<string, { name: string; description: string }>;
  let byName = byNameCache.get(skills);
  if (!byName) {
    byName = new Map(skills.map((s) => [s.name, s]));
    byNameCache.set(skills, byName);
  }
  return byName;
}

export function searchSkills(
  matcher: Matcher,
  skills: SearchableSkills,
  query: string,
  limit: number = DEFAULT_SEARCH_LIMIT,
  access?: CatalogPresenceOf,
): SkillSearchHit[] {
  const max = Math.min(MAX_SEARCH_LIMIT, Math.max(1, Math.floor(limit) || DEFAULT_SEARCH_LIMIT));
  if (!query.trim()) return [];
  const byName = namesOf(skills);
  const hits: SkillSearchHit[] = [];
  // The matcher knows every skill; hidden ones are filtered here, so ask for all ranked and stop at `max`.
  for (const { name, score } of matcher.rank(query.slice(0, 1000))) {
    const skill = byName.get(name);
    if (!skill || access?.get(name)?.catalog === 'hidden') continue;
    // A hit reaches the model as a tool result: the same text as a catalog entry, without hidden characters.
    hits.push({ name, description: stripHiddenText(skill.description), score });
    if (hits.length >= max) break;
  }
  return hits;
}
