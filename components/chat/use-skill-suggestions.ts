'use client';
import { useEffect, useState } from 'react';
/** Skills for the slash menu, fetched as the person types (ranked by the server's matcher). */
import { searchSkills } from '@/components/lib/api';
import type { SkillSummary } from '@/server/chat/wire-types';

/** Long enough to skip a request per keystroke when typing fast, short enough to feel instant. */
const DEBOUNCE_MS = 60;
const MAX_OPTIONS = 8;

/**
 * The matcher ranks by meaning; someone typing a name prefix expects that skill on top, so names that start with (or
 * contain) the query move ahead while the matcher's order is kept within each group.
 */
export function orderForQuery(skills: SkillSummary[], query: string): SkillSummary[] {
  const q = query.toLowerCase();
  if (!q) return skills;
  const rank = (s: SkillSummary) => (s.name.startsWith(q) ? 0 : s.name.includes(q) ? 1 : 2);
  return skills
    .map((skill, index) => ({ skill, index }))
    .sort((a, b) => rank(a.skill) - rank(b.skill) || a.index - b.index)
    .map((entry) => entry.skill);
}

/** `revision`: bump it to fetch again for the same query (the person switched skills on or off). */
export function useSkillSuggestions(
  query: string | null,
  revision = 0,
): {
  skills: SkillSummary[];
  loading: boolean;
  error: string | null;
} {
  const [state, setState] = useState<{ query: string | null; skills: SkillSummary[]; error: string | null }>({
    query: null,
    skills: [],
    error: null,
  });

  // biome-ignore lint/correctness/useExhaustiveDependencies: `revision` is the signal to fetch the same query again.
  useEffect(() => {
    if (query === null) return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      searchSkills(query, controller.signal)
        .then((skills) => setState({ query, skills: orderForQuery(skills, query).slice(0, MAX_OPTIONS), error: null }))
        .catch((error: unknown) => {
          if (controller.signal.aborted) return;
          setState({ query, skills: [], error: error instanceof Error ? error.message : 'Could not load skills' });
        });
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [query, revision]);

  // Keep showing the previous results while the next ones load, so the list does not flicker on every keystroke.
  return {
    skills: query === null ? [] : state.skills,
    loading: query !== null && state.query !== query,
    error: state.error,
  };
}
