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
 * The index is a plain inverted index (term -> skill ids) with a sorted vocabulary for prefix lookups: building it
 * for 10,000 skills is most of what `skills match` costs, so it stays simple.
 */
import { termSequence } from './match-analyze';

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
/** Field of a term in a skill: the best one wins. */
const NAME = 3;
const TRIGGER = 2;
const REPEATED = 1;
const DESCRIPTION = 0;

/** Code-point order (not UTF-16 code-unit order, which misplaces astral characters): one order for every list. */
export function compareNames(a: string, b: string): number {
  if (a === b) return 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const ca = ia.next();
    const cb = ib.next();
    if (ca.done) return cb.done ? 0 : -1;
    if (cb.done) return 1;
    const d = ca.value.codePointAt(0)! - cb.value.codePointAt(0)!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
}

interface Doc {
  /** Term -> best field (NAME, TRIGGER, DESCRIPTION). */
  fields: Map<string, number>;
  /** Name then description terms in order, for phrases. */
  sequence: string[];
}

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

/** Words a description puts in double quotes: the author naming what people say ("deck," "slides"). */
const QUOTED = /["\u201c]([^"\u201c\u201d\n]{1,40})["\u201d]/g;

function indexDoc(name: string, description: string): Doc {
  const fields = new Map<string, number>();
  const nameTerms = termSequence(name);
  const descriptionTerms = termSequence(description);
  // A word the description repeats is what the skill is about ("spreadsheet" three times in xlsx's).
  for (const t of descriptionTerms) fields.set(t, fields.has(t) ? REPEATED : DESCRIPTION);
  if (description.includes('"') || description.includes('\u201c')) {
    for (const m of description.matchAll(QUOTED)) for (const t of termSequence(m[1]!)) fields.set(t, TRIGGER);
  }
  for (const t of nameTerms) fields.set(t, NAME);
  return { fields, sequence: [...nameTerms, '', ...descriptionTerms] };
}

/**
 * A skill as the matcher indexes it (its terms, in order, and each term's best field), in a form that survives
 * JSON: a fresh process (`skills match`) keeps the index of an unchanged catalog instead of analysing 10,000
 * descriptions again. Only `indexSkill` makes one.
 */
export type MatcherDoc = [sequence: string[], fields: Array<[string, number]>];

export function indexSkill(skill: { name: string; description: string }): MatcherDoc {
  const doc = indexDoc(skill.name, skill.description);
  return [doc.sequence, [...doc.fields]];
}

/** Index of the first element of a sorted array that is >= `value`. */
function lowerBound(sorted: readonly string[], value: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The expansions the catalog gives an acronym: runs of 2-5 adjacent terms (each 3+ characters) in any skill's text
 * whose initials spell it ("pr" and "pull request"). A linear pass over the catalog's terms, once per acronym asked.
 */
function findExpansions(acronym: string, docs: readonly Doc[]): string[][] {
  const n = acronym.length;
  const found = new Map<string, string[]>();
  for (const { sequence } of docs) {
    for (let i = 0; i + n <= sequence.length; i++) {
      let k = 0;
      while (k < n && sequence[i + k]!.length >= 3 && sequence[i + k]!.charCodeAt(0) === acronym.charCodeAt(k)) k++;
      if (k < n) continue;
      const words = sequence.slice(i, i + n);
      if (!words.includes(acronym)) found.set(words.join(' '), words);
    }
  }
  return [...found.values()];
}

/**
 * `indexed`: the skills' MatcherDocs (from `indexSkill`, same order), when kept from an earlier run; the
 * descriptions are then not read.
 */
export function createMatcher(
  skills: ReadonlyArray<{ name: string; description: string }>,
  tuning: MatcherTuning = DEFAULT_TUNING,
  indexed?: readonly MatcherDoc[],
): Matcher {
  const { threshold, longQueryCap, descriptionCredit, unknownWeight, repeatedCredit } = tuning;
  const fieldCredit = (field: number) =>
    field === DESCRIPTION ? descriptionCredit : field === REPEATED ? repeatedCredit : NAME_CREDIT;
  const names = skills.map((s) => s.name);
  const sortedNames = [...names].sort(compareNames);
  const lowerNames = names.map((n) => n.normalize('NFKC').toLowerCase());
  const total = skills.length;

  if (indexed && indexed.length !== total) throw new Error('createMatcher: one MatcherDoc per skill');
  const docs: Doc[] = indexed
    ? indexed.map(([sequence, fields]) => ({ sequence, fields: new Map(fields) }))
    : skills.map((s) => indexDoc(s.name, s.description));
  const postings = new Map<string, number[]>();
  // How many skills carry a term in their name: "skill" is in most descriptions ("use this skill") but in one name.
  const nameDf = new Map<string, number>();
  docs.forEach((doc, id) => {
    for (const [term, field] of doc.fields) if (field === NAME) nameDf.set(term, (nameDf.get(term) ?? 0) + 1);
    for (const term of doc.fields.keys()) {
      const list = postings.get(term);
      if (list) list.push(id);
      else postings.set(term, [id]);
    }
  });
  let vocabulary: string[] | null = null;
  const sortedVocabulary = () => {
    vocabulary ??= [...postings.keys()].sort();
    return vocabulary;
  };
  const expansionCache = new Map<string, string[][]>();
  const expansionsOf = (acronym: string) => {
    let found = expansionCache.get(acronym);
    if (!found) {
      found = findExpansions(acronym, docs);
      if (expansionCache.size < 1000) expansionCache.set(acronym, found);
    }
    return found;
  };
  const isAcronym = (term: string) => term.length >= 2 && term.length <= 5 && /^[a-z]+$/.test(term);

  const idf = (df: number) => Math.log(1 + (total - df + 0.5) / (df + 0.5));
  // Scratch space for score(): every credit is > 0, so 0 means "not seen for this term". Scoring is synchronous, so
  // one array serves every call.
  const best = new Float64Array(total);

  /** Catalog terms a query term stands for: itself, and while allowed, longer terms it is a prefix of. */
  function expansions(term: string, prefix: boolean): Array<{ term: string; exact: boolean }> {
    const out = postings.has(term) ? [{ term, exact: true }] : [];
    if (!prefix) return out;
    const vocab = sortedVocabulary();
    for (let i = lowerBound(vocab, term); i < vocab.length && vocab[i]!.startsWith(term); i++) {
      if (vocab[i] !== term) out.push({ term: vocab[i]!, exact: false });
    }
    return out;
  }

  function score(text: string, typing: boolean): Scored[] {
    const sequence = termSequence(text);
    const terms = [...new Set(sequence)];
    // An acronym in the message stands for its expansion and the reverse: `key` is the message's form (one term, or
    // adjacent terms joined by a space), `words` the catalog's other form.
    const alternates: Array<{ key: string; words: string[] }> = [];
    if (terms.length > 0 && total > 0) {
      for (const term of terms) {
        if (!isAcronym(term) || !postings.has(term)) continue;
        for (const words of expansionsOf(term)) alternates.push({ key: term, words });
      }
      // Adjacent message words whose initials are a catalog term, where the catalog spells that term out so too.
      for (let i = 0; i < sequence.length; i++) {
        for (let n = 2; n <= 5 && i + n <= sequence.length; n++) {
          const words = sequence.slice(i, i + n);
          if (words.some((w) => w.length < 3)) break;
          const initials = words.map((w) => w[0]).join('');
          if (terms.includes(initials) || !postings.has(initials)) continue;
          const key = words.join(' ');
          if (expansionsOf(initials).some((e) => e.join(' ') === key)) alternates.push({ key, words: [initials] });
        }
      }
    }
    const prefixed = (term: string, i: number) =>
      term.length >= MIN_PREFIX_LENGTH || (typing && i === terms.length - 1);

    // Per query term: which skills have it, and at what credit.
    const credits = new Map<number, Float64Array>();
    const dfs: number[] = [];
    terms.forEach((term, i) => {
      // Best credit per skill in `best` (all zeros between terms), skills in first-seen order in `hit`: a common
      // word of a 10,000-skill catalog has thousands of postings, and a Map per term was most of a search's cost.
      const hit: number[] = [];
      for (const { term: docTerm, exact } of expansions(term, prefixed(term, i))) {
        for (const id of postings.get(docTerm)!) {
          const c = fieldCredit(docs[id]!.fields.get(docTerm)!) * (exact ? 1 : PREFIX_FACTOR);
          if (!(c > 0)) continue; // a zero credit (a tuning could set one) is no hit
          const previous = best[id]!;
          if (previous === 0) hit.push(id);
          if (c > previous) best[id] = c;
        }
      }
      dfs.push(hit.length);
      for (const id of hit) {
        let row = credits.get(id);
        if (!row) {
          row = new Float64Array(terms.length);
          credits.set(id, row);
        }
        row[i] = best[id]!;
        best[id] = 0;
      }
    });
    const addAlternate = (key: string, words: string[], phraseInSkill: boolean) => {
      // The other form, found in a skill, counts as the message's own term (or terms) found there at full credit.
      const indexes = key.includes(' ') ? key.split(' ').map((t) => terms.indexOf(t)) : [terms.indexOf(key)];
      if (indexes.some((i) => i < 0)) return;
      const candidates = postings.get(words[0]!) ?? [];
      for (const id of candidates) {
        const doc = docs[id]!;
        if (!words.every((w) => doc.fields.has(w))) continue;
        if (phraseInSkill && !containsRun(doc.sequence, words)) continue;
        let row = credits.get(id);
        if (!row) {
          row = new Float64Array(terms.length);
          credits.set(id, row);
        }
        for (const i of indexes) row[i] = Math.max(row[i]!, NAME_CREDIT);
      }
    };
    for (const { key, words } of alternates) addAlternate(key, words, words.length > 1);

    const weight = (df: number) => Math.min(1, idf(df) / idf(1));
    const weights = dfs.map((df) => (df === 0 ? unknownWeight : weight(df)));
    const nameWeights = terms.map((t) => weight(nameDf.get(t) ?? 0));
    const denominator = Math.min(
      weights.reduce((a, b) => a + b, 0),
      longQueryCap,
    );
    const pairs: Array<[number, number]> = [];
    for (let k = 0; k + 1 < sequence.length; k++) {
      const a = terms.indexOf(sequence[k]!);
      const b = terms.indexOf(sequence[k + 1]!);
      if (a >= 0 && b >= 0 && a !== b) pairs.push([a, b]);
    }

    const scored: Scored[] = [];
    for (const [id, row] of credits) {
      // Phrases: adjacent in the message and in the skill's text.
      for (const [a, b] of pairs) {
        if (row[a]! > 0 && row[b]! > 0 && (row[a]! < NAME_CREDIT || row[b]! < NAME_CREDIT)) {
          if (containsRun(docs[id]!.sequence, [terms[a]!, terms[b]!])) {
            row[a] = NAME_CREDIT;
            row[b] = NAME_CREDIT;
          }
        }
      }
      let covered = 0;
      let matched = 0;
      let nameHits = 0;
      const fields = docs[id]!.fields;
      for (let i = 0; i < row.length; i++) {
        // A word of the skill's name weighs as specific as it is among names, if that is more.
        const inName = row[i]! > 0 && fields.get(terms[i]!) === NAME;
        if (inName) nameHits++;
        const w = inName ? Math.max(weights[i]!, nameWeights[i]!) : weights[i]!;
        covered += w * row[i]!;
        if (row[i]! > 0) matched++;
      }
      if (covered === 0) continue;
      scored.push({
        name: names[id]!,
        score: denominator > 0 ? Math.min(1, covered / denominator) : 0,
        // Among equal shares, the skill whose own text is most about these words: fewer other words.
        nameHits,
        tieBreak: matched / Math.sqrt(docs[id]!.fields.size + 1),
        namePrefix: false,
      });
    }
    const byName = new Map<string, Scored>();
    for (const s of scored) byName.set(s.name, s);

    // The slash menu: "/pd" must offer "pdf" first even though "pd" is no word of it. Only while typing: as a
    // complete message "hi" must not select "hiring-pipeline".
    const raw = text.trim().normalize('NFKC').toLowerCase();
    if (typing && raw && !/\s/.test(raw)) {
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
      if (!text.trim()) return sortedNames.slice(0, limit).map((name) => ({ name, score: 0 }));
      return score(text, true).slice(0, limit).map(strip);
    },
    match(text, limit = Number.POSITIVE_INFINITY) {
      return score(text, false)
        .filter((s) => s.score >= threshold)
        .slice(0, limit)
        .map(strip);
    },
  };
}

/** Whether `words` stand next to each other, in order, somewhere in `sequence`. */
function containsRun(sequence: readonly string[], words: readonly string[]): boolean {
  outer: for (let i = 0; i + words.length <= sequence.length; i++) {
    for (let k = 0; k < words.length; k++) if (sequence[i + k] !== words[k]) continue outer;
    return true;
  }
  return false;
}
