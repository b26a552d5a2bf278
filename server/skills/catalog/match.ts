/**
 * Lexical skill matching over name + description: drives the offline model (which skill fits this message?), the
 * slash menu and `skills_search`. One score in [0, 1] both orders candidates and decides whether one is relevant at
 * all, so that chit-chat selects nothing.
 *
 *   relevance = Σ_{t ∈ query} w(t) · credit(t, skill)  /  min(Σ_{t ∈ query} w(t), LONG_QUERY_CAP)
 *
 * - Terms: match-analyze.ts (stop words and bare numbers dropped, light stemming, the same on both sides).
 * - credit, by field: 1 for a word of the skill's name or a trigger word its description quotes ("deck," "slides"),
 *   DESCRIPTION_CREDIT for any other description word, halved for a prefix match. Two query words that stand next to
 *   each other in the skill's text too ("text to speech", "pull request") are a phrase and get full credit.
 * - Acronyms the catalog itself defines: a short word of one description that spells the initials of adjacent
 *   words in another ("PR" and "pull request"), or its own ("MCP (Model Context Protocol)"), makes either form of
 *   the message find both.
 * - w(t): how specific the term is within this catalog, idf(df) / idf(1), so a term only one skill uses weighs 1 and
 *   a term most skills use weighs little. A term no skill uses weighs 1: the message is about something the catalog
 *   does not cover, which pulls every skill's share down.
 * - LONG_QUERY_CAP: a long message mentions many words no skill covers; covering about two specific words' worth of
 *   it is enough.
 *
 * Raw BM25-style scores grow with catalog size (idf ~ log N), so a fixed threshold on them would match everything in
 * a 3-skill catalog or nothing in a 500-skill one. The share above is a ratio of weights from the same catalog, so
 * one threshold (MATCH_THRESHOLD) holds for 3 skills and for 10,000. The constants were tuned on half of the
 * labelled set in fixtures/match/ (`npm run bench` reports the other half separately).
 *
 * The index (match-index.ts) is a plain inverted index over a sorted vocabulary, in flat typed arrays: the server
 * builds it from the skills, `skills match` keeps it as bytes between runs and loads it without an object per skill.
 * Both rank through the one `matcherOver` below, so the two cannot diverge.
 */
import { compareNames } from '../name-order';
import { termSequence } from './match-analyze';
import { buildIndex, DESCRIPTION, type MatchIndex, NAME, REPEATED, TRIGGER } from './match-index';

export { analyze, stem } from './match-analyze';

export interface RankedSkill {
  name: string;
  /** Relevance in [0, 1] (see the module comment); `rank('')` gives 0 to every skill. */
  score: number;
}

export interface Matcher {
  /** Candidates best first, for typing: the last word may be incomplete, and a name starting with the text wins. */
  rank(text: string, limit?: number): RankedSkill[];
  /** Only skills relevant to a complete message (score >= MATCH_THRESHOLD), best first; empty for chit-chat. */
  match(text: string, limit?: number): RankedSkill[];
  /** Every skill the complete message shares a term with, best first, the threshold not applied: why nothing matched. */
  nearest(text: string, limit?: number): RankedSkill[];
}

export const MATCH_THRESHOLD = 0.45;

/** The constants below, adjustable only to search for better ones (bench/match-tune.ts); the defaults are those. */
export interface MatcherTuning {
  threshold: number;
  longQueryCap: number;
  descriptionCredit: number;
  /** Weight of a message word no skill uses. */
  unknownWeight: number;
  /** Credit of a word the description uses more than once. */
  repeatedCredit: number;
}
export const DEFAULT_TUNING: MatcherTuning = {
  threshold: MATCH_THRESHOLD,
  longQueryCap: 2.5,
  descriptionCredit: 0.75,
  unknownWeight: 1,
  repeatedCredit: 0.9,
};
const NAME_CREDIT = 1;
const PREFIX_FACTOR = 0.5;
/** Shorter stems prefix-match too much ("go" -> "golang", "google"). */
const MIN_PREFIX_LENGTH = 4;

interface Scored extends RankedSkill {
  /** Message words found in the skill's name: among equal shares, a name hit is the stronger evidence. */
  nameHits: number;
  tieBreak: number;
  namePrefix: boolean;
}

const byRelevance = (a: Scored, b: Scored) =>
  Number(b.namePrefix) - Number(a.namePrefix) ||
  b.score - a.score ||
  b.nameHits - a.nameHits ||
  b.tieBreak - a.tieBreak ||
  compareNames(a.name, b.name);

/** The matcher over these skills, built in memory (the server, the slash menu, `skills_search`). */
export function createMatcher(
  skills: ReadonlyArray<{ name: string; description: string }>,
  tuning: MatcherTuning = DEFAULT_TUNING,
): Matcher {
  return matcherOver(buildIndex(skills), tuning);
}

/**
 * Everything an index is built from: the skills' names and descriptions, in order. Equal inputs, equal indexes, so
 * `skills match` keeps its index under this text's digest (the server's registry compares the skills themselves).
 */
export function matcherInput(skills: ReadonlyArray<{ name: string; description: string }>): string {
  return JSON.stringify(skills.map((s) => [s.name, s.description]));
}

/** The matcher over an index built or kept earlier (`skills match` loads one with decodeIndex). */
export function matcherOver(index: MatchIndex, tuning: MatcherTuning = DEFAULT_TUNING): Matcher {
  const { threshold, longQueryCap, descriptionCredit, unknownWeight, repeatedCredit } = tuning;
  // Credit by a term's best field in a skill (postingField).
  const fieldCredit: number[] = [];
  fieldCredit[DESCRIPTION] = descriptionCredit;
  fieldCredit[REPEATED] = repeatedCredit;
  fieldCredit[TRIGGER] = NAME_CREDIT;
  fieldCredit[NAME] = NAME_CREDIT;
  const maxCredit = Math.max(...fieldCredit);
  const { names, total, postingStart, postingDoc, postingField } = index;
  // Only the slash menu needs these, and `skills match` never: not computed for every one-shot query.
  let sortedNames: string[] | null = null;
  let lowerNames: string[] | null = null;
  const isAcronym = (term: string) => term.length >= 2 && term.length <= 5 && /^[a-z]+$/.test(term);
  const known = (term: string) => index.termId(term) >= 0;

  const idf = (df: number) => Math.log(1 + (total - df + 0.5) / (df + 0.5));
  // Scratch space for score(), all back to their initial values between calls (scoring is synchronous, so one set
  // serves every call): a skill's best credit for the current term (every credit is > 0, so 0 means "not seen"),
  // whether it has the term itself in its name, and a catalog term's index in the query (-1: not in it).
  const best = new Float64Array(total);
  const named = new Uint8Array(total);
  const queryIndex = new Int32Array(index.vocabulary.length + 1).fill(-1); // + 1: the name/description separator

  /** Catalog terms a query term stands for: itself, and while allowed, longer terms it is a prefix of. */
  function expansions(term: string, prefix: boolean): Array<{ id: number; exact: boolean }> {
    const id = index.termId(term);
    const out = id >= 0 ? [{ id, exact: true }] : [];
    if (!prefix) return out;
    const [from, to] = index.prefixRange(term);
    for (let other = from; other < to; other++) if (other !== id) out.push({ id: other, exact: false });
    return out;
  }

  /** Skills the text is about, best first; those below `minScore` left out. */
  function score(text: string, typing: boolean, minScore = Number.NEGATIVE_INFINITY): Scored[] {
    const sequence = termSequence(text);
    const terms = [...new Set(sequence)];
    const termIds = terms.map((t) => index.termId(t));
    // An acronym in the message stands for its expansion and the reverse: `key` is the message's form (one term, or
    // adjacent terms joined by a space), `docs` the skills with the catalog's other form (the expansion in a row, or
    // the acronym).
    const alternates: Array<{ key: string; docs: ArrayLike<number> }> = [];
    if (terms.length > 0 && total > 0) {
      for (const term of terms) {
        if (!isAcronym(term) || !known(term)) continue;
        for (const { docs } of index.expansions(term)) alternates.push({ key: term, docs });
      }
      // Adjacent message words whose initials are a catalog term, where the catalog spells that term out so too.
      for (let i = 0; i < sequence.length; i++) {
        for (let n = 2; n <= 5 && i + n <= sequence.length; n++) {
          const words = sequence.slice(i, i + n);
          if (words.some((w) => w.length < 3)) break;
          const initials = words.map((w) => w[0]).join('');
          if (terms.includes(initials) || !known(initials)) continue;
          const key = words.join(' ');
          if (index.expansions(initials).some((e) => e.words.join(' ') === key)) {
            const id = index.termId(initials);
            alternates.push({ key, docs: postingDoc.subarray(postingStart[id], postingStart[id + 1]) });
          }
        }
      }
    }
    const prefixed = (term: string, i: number) =>
      term.length >= MIN_PREFIX_LENGTH || (typing && i === terms.length - 1);

    // Per query term: which skills have it, and at what credit. The skills in first-seen order in `candidates`, their
    // credits in one flat array (`width` per skill): a typed array per skill, for thousands of skills that share a
    // common word, was most of a search's cost (allocation and garbage collection).
    // `inName` beside it: whether the skill has the query term itself in its name.
    const width = terms.length;
    const candidates: number[] = [];
    const slotOf = new Int32Array(total).fill(-1);
    let rows = new Float64Array(width * 64);
    let inName = new Uint8Array(rows.length);
    const rowOf = (id: number): number => {
      let slot = slotOf[id]!;
      if (slot < 0) {
        slot = candidates.push(id) - 1;
        slotOf[id] = slot;
        if ((slot + 1) * width > rows.length) {
          const grownRows = new Float64Array(rows.length * 2);
          grownRows.set(rows);
          rows = grownRows;
          const grownInName = new Uint8Array(rows.length);
          grownInName.set(inName);
          inName = grownInName;
        }
      }
      return slot * width;
    };
    const dfs: number[] = [];
    terms.forEach((term, i) => {
      // Best credit per skill in `best` (all zeros between terms), skills in first-seen order in `hit`.
      const hit: number[] = [];
      for (const { id: termId, exact } of expansions(term, prefixed(term, i))) {
        const factor = exact ? 1 : PREFIX_FACTOR;
        for (let p = postingStart[termId]!; p < postingStart[termId + 1]!; p++) {
          const id = postingDoc[p]!;
          const field = postingField[p]!;
          const c = fieldCredit[field]! * factor;
          if (!(c > 0)) continue; // a zero credit (a tuning could set one) is no hit
          if (exact && field === NAME) named[id] = 1;
          const previous = best[id]!;
          if (previous === 0) hit.push(id);
          if (c > previous) best[id] = c;
        }
      }
      dfs.push(hit.length);
      for (const id of hit) {
        const at = rowOf(id);
        rows[at + i] = best[id]!;
        inName[at + i] = named[id]!;
        best[id] = 0;
        named[id] = 0;
      }
    });
    for (const { key, docs } of alternates) {
      // The other form, found in a skill, counts as the message's own term (or terms) found there at full credit.
      const indexes = key.includes(' ') ? key.split(' ').map((t) => terms.indexOf(t)) : [terms.indexOf(key)];
      if (indexes.some((i) => i < 0)) continue;
      for (let k = 0; k < docs.length; k++) {
        const at = rowOf(docs[k]!);
        for (const i of indexes) rows[at + i] = Math.max(rows[at + i]!, NAME_CREDIT);
      }
    }

    const weight = (df: number) => Math.min(1, idf(df) / idf(1));
    const weights = dfs.map((df) => (df === 0 ? unknownWeight : weight(df)));
    // How many skills carry a term in their name: "skill" is in most descriptions ("use this skill") but in one name.
    const nameWeights = termIds.map((id) => weight(id >= 0 ? index.nameDf(id) : 0));
    const denominator = Math.min(
      weights.reduce((a, b) => a + b, 0),
      longQueryCap,
    );
    // Phrases: two query terms adjacent in the message (pairs, as a, b, a, b, ...) and in the skill's text. Each
    // raises both terms to full credit where the skill has both; the order they are applied in does not matter.
    const pairs: number[] = [];
    for (let k = 0; k + 1 < sequence.length; k++) {
      const a = terms.indexOf(sequence[k]!);
      const b = terms.indexOf(sequence[k + 1]!);
      if (a >= 0 && b >= 0 && a !== b && termIds[a]! >= 0 && termIds[b]! >= 0) pairs.push(a, b);
    }
    // Pairs seen in the current skill's text: adjacent[a * width + b] === its slot + 1.
    const adjacent = new Int32Array(width * width);
    for (let i = 0; i < width; i++) if (termIds[i]! >= 0) queryIndex[termIds[i]!] = i;

    const scored: Scored[] = [];
    const { sequence: words, sequenceStart } = index;
    for (let slot = 0; slot < candidates.length; slot++) {
      const id = candidates[slot]!;
      const at = slot * width;
      if (minScore > 0 && denominator > 0) {
        // match(): a skill that could not reach the threshold with every term it has at full credit is not looked
        // at further (most of a common word's thousands of skills). Each term of the bound is >= its term below.
        let bound = 0;
        for (let i = 0; i < width; i++)
          if (rows[at + i]! > 0) bound += Math.max(weights[i]!, nameWeights[i]!) * maxCredit;
        if (Math.min(1, bound / denominator) < minScore) continue;
      }
      let scanned = false;
      for (let k = 0; k < pairs.length; k += 2) {
        const a = pairs[k]!;
        const b = pairs[k + 1]!;
        if (!(rows[at + a]! > 0 && rows[at + b]! > 0 && (rows[at + a]! < NAME_CREDIT || rows[at + b]! < NAME_CREDIT))) {
          continue;
        }
        if (!scanned) {
          // One pass over the skill's text marks every query pair in it.
          scanned = true;
          let previous = -1;
          for (let p = sequenceStart[id]!; p < sequenceStart[id + 1]!; p++) {
            const term = words[p]!;
            const current = queryIndex[term] ?? -1;
            if (previous >= 0 && current >= 0) adjacent[previous * width + current] = slot + 1;
            previous = current;
          }
        }
        if (adjacent[a * width + b] === slot + 1) {
          rows[at + a] = NAME_CREDIT;
          rows[at + b] = NAME_CREDIT;
        }
      }
      let covered = 0;
      let matched = 0;
      let nameHits = 0;
      for (let i = 0; i < width; i++) {
        const credit = rows[at + i]!;
        // A word of the skill's name weighs as specific as it is among names, if that is more.
        if (inName[at + i]) nameHits++;
        const w = inName[at + i] ? Math.max(weights[i]!, nameWeights[i]!) : weights[i]!;
        covered += w * credit;
        if (credit > 0) matched++;
      }
      if (covered === 0) continue;
      const share = denominator > 0 ? Math.min(1, covered / denominator) : 0;
      // match() keeps only relevant skills: the others are not even sorted.
      if (share < minScore) continue;
      scored.push({
        name: names[id]!,
        score: share,
        // Among equal shares, the skill whose own text is most about these words: fewer other words.
        nameHits,
        tieBreak: matched / Math.sqrt(index.termCounts[id]! + 1),
        namePrefix: false,
      });
    }
    for (let i = 0; i < width; i++) if (termIds[i]! >= 0) queryIndex[termIds[i]!] = -1;

    // The slash menu: "/pd" must offer "pdf" first even though "pd" is no word of it. Only while typing: as a
    // complete message "hi" must not select "hiring-pipeline".
    const raw = text.trim().normalize('NFKC').toLowerCase();
    if (typing && raw && !/\s/.test(raw)) {
      const byName = new Map<string, Scored>();
      for (const s of scored) byName.set(s.name, s);
      lowerNames ??= names.map((n) => n.normalize('NFKC').toLowerCase());
      lowerNames.forEach((lower, id) => {
        if (!lower.startsWith(raw)) return;
        const existing = byName.get(names[id]!);
        if (existing) {
          existing.score = 1;
          existing.namePrefix = true;
        } else scored.push({ name: names[id]!, score: 1, nameHits: 0, tieBreak: 0, namePrefix: true });
      });
    }
    return scored.sort(byRelevance);
  }

  const strip = ({ name, score }: Scored): RankedSkill => ({ name, score });

  return {
    rank(text, limit = Number.POSITIVE_INFINITY) {
      sortedNames ??= [...names].sort(compareNames);
      if (!text.trim()) return sortedNames.slice(0, limit).map((name) => ({ name, score: 0 }));
      return score(text, true).slice(0, limit).map(strip);
    },
    match(text, limit = Number.POSITIVE_INFINITY) {
      return score(text, false, threshold).slice(0, limit).map(strip);
    },
    nearest(text, limit = Number.POSITIVE_INFINITY) {
      return score(text, false)
        .filter((s) => s.score > 0)
        .slice(0, limit)
        .map(strip);
    },
  };
}
