/**
 * The offline model's answer to a description request (server/evals/describe.ts): no judgement, only the request's
 * own words, so the proposals are a pure function of the queries and tests can be exact. Each proposal keeps the
 * current description and adds what the should-trigger queries say that it does not:
 *   1. the words of the failed should-trigger queries (or all of them when none failed);
 *   2. up to three should-trigger queries quoted as examples;
 *   3. the words of every should-trigger query, then "Not for" the should-not ones' words.
 */
import { DESCRIPTION_REQUEST_TAG } from '../prompt/keys';

interface RequestQuery {
  query: string;
  should_trigger: boolean;
  passed: boolean;
}

const REQUEST = new RegExp(`<${DESCRIPTION_REQUEST_TAG}>([\\s\\S]*?)</${DESCRIPTION_REQUEST_TAG}>`);
const MAX_CHARS = 1024;
const STOP = new Set(
  'this that these those with from into onto about please could would should there their them they your mine have has had been were what when where which while will make made need want just also some more than then only like each other every over under after before very much many here the and for are you can'.split(
    ' ',
  ),
);

function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}-]*/gu) ?? []).filter((w) => w.length >= 4 && !STOP.has(w));
}

/** The queries' words the description lacks, most frequent first (then first seen). */
function newTerms(queries: readonly RequestQuery[], description: string, limit: number): string[] {
  const known = new Set(words(description));
  const counts = new Map<string, number>();
  for (const q of queries)
    for (const w of new Set(words(q.query))) if (!known.has(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([w]) => w);
}

function clamp(text: string): string {
  if (text.length <= MAX_CHARS) return text;
  const cut = text.slice(0, MAX_CHARS - 1);
  return `${cut.slice(0, cut.lastIndexOf(' '))}.`;
}

/** The answer text for a message holding a description request, or null when it holds none. */
export function descriptionAnswer(userText: string): string | null {
  const m = REQUEST.exec(userText);
  if (!m) return null;
  let facts: { current_description?: unknown; count?: unknown; queries?: unknown };
  try {
    facts = JSON.parse(m[1]!) as typeof facts;
  } catch {
    return null;
  }
  const current = typeof facts.current_description === 'string' ? facts.current_description.trim() : '';
  const count = typeof facts.count === 'number' ? facts.count : 3;
  const queries = Array.isArray(facts.queries) ? (facts.queries as RequestQuery[]) : [];
  const wanted = queries.filter((q) => q.should_trigger);
  const missed = wanted.filter((q) => !q.passed);
  const unwanted = queries.filter((q) => !q.should_trigger);
  const base = current.replace(/[\s.]+$/, '');
  const proposals: string[] = [];
  const focus = newTerms(missed.length > 0 ? missed : wanted, base, 6);
  if (focus.length > 0) proposals.push(`${base}. Use it also for ${focus.join(', ')}.`);
  if (wanted.length > 0) {
    proposals.push(
      `${base}. Use it for requests such as ${wanted
        .slice(0, 3)
        .map((q) => `"${q.query}"`)
        .join('; ')}.`,
    );
  }
  const all = newTerms(wanted, base, 10);
  const not = newTerms(unwanted, `${base} ${all.join(' ')}`, 6);
  if (all.length > 0 || not.length > 0) {
    proposals.push(
      `${base}.${all.length ? ` Use it for ${all.join(', ')}.` : ''}${not.length ? ` Not for ${not.join(', ')}.` : ''}`,
    );
  }
  const unique = [...new Set(proposals.map(clamp))].slice(0, Math.max(1, count));
  return JSON.stringify({ descriptions: unique });
}
