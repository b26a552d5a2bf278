/**
 * Lexical skill matching over name + description: drives the offline model (which skill fits this message?),
 * the slash menu and catalog search. BM25+ (minisearch) orders candidates; a separate normalised relevance score
 * decides whether a candidate is relevant at all, so that chit-chat selects nothing.
 *
 * Relevance in [0, 1] is the weighted share of the query's meaningful terms that a skill covers:
 *
 *   relevance = Σ_{t ∈ query} w(t) · credit(t, skill)  /  min(Σ_{t ∈ query} w(t), LONG_QUERY_CAP)
 *
 * - Meaningful terms: stop words (English, chat filler, skill-description boilerplate) and 1-character tokens are
 *   dropped, the rest lightly stemmed ("validate" and "validation" both become "validat").
 * - credit: 1 when the term is in the skill's name, 0.75 when only in its description, halved for a prefix match.
 *   A name hit is the strongest evidence people and models have; a word shared with a description is weaker.
 * - w(t): how specific the term is within this catalog, idf(df) / idf(1), so a term only one skill uses weighs 1
 *   and a term most skills use weighs little. A term no skill uses weighs 1: the message is about something the
 *   catalog does not cover, which must pull every skill's share down.
 * - LONG_QUERY_CAP: a long message mentions many words no skill covers; covering about three specific words'
 *   worth of it is enough.
 *
 * Raw BM25 scores grow with catalog size (idf ~ log N), so a fixed threshold on them would match everything in a
 * 3-skill catalog or nothing in a 500-skill one. The share above is a ratio of weights from the same catalog, so one
 * threshold (MATCH_THRESHOLD) holds for 3 skills and for 10,000 (tested with 3 and 500).
 *
 * With the threshold at 0.5, a description-only skill needs about two thirds of the query's weight; a skill whose
 * name carries the one specific word of a two-word query is enough ("make a PDF from markdown" -> `pdf`), while a
 * single description word of a two-word query is not ("what's the weather like today" vs a "today's date" skill).
 */
import MiniSearch, { type SearchResult } from 'minisearch';

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

export const MATCH_THRESHOLD = 0.5;
const LONG_QUERY_CAP = 3;
const NAME_CREDIT = 1;
const DESCRIPTION_CREDIT = 0.75;
const PREFIX_FACTOR = 0.5;
/** Shorter stems prefix-match too much ("go" -> "golang", "google"). */
const MIN_PREFIX_LENGTH = 4;

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

// biome-ignore format: one word list, kept dense
const STOP_WORDS = new Set([
  // English function words
  'a', 'about', 'above', 'after', 'again', 'against', 'all', 'am', 'an', 'and', 'any', 'are', 'as', 'at', 'be',
  'because', 'been', 'before', 'being', 'below', 'between', 'both', 'but', 'by', 'can', 'could', 'did', 'do', 'does',
  'doing', 'down', 'during', 'each', 'either', 'else', 'etc', 'ever', 'every', 'few', 'for', 'from', 'further', 'had',
  'has', 'have', 'having', 'he', 'her', 'here', 'hers', 'herself', 'him', 'himself', 'his', 'how', 'however', 'if',
  'in', 'into', 'is', 'it', 'its', 'itself', 'just', 'may', 'me', 'might', 'mine', 'more', 'most', 'must', 'my',
  'myself', 'neither', 'no', 'nor', 'not', 'now', 'of', 'off', 'on', 'once', 'only', 'or', 'other', 'ought', 'our',
  'ours', 'ourselves', 'out', 'over', 'own', 'same', 'shall', 'she', 'should', 'so', 'some', 'such', 'than', 'that',
  'the', 'their', 'theirs', 'them', 'themselves', 'then', 'there', 'these', 'they', 'this', 'those', 'through', 'to',
  'too', 'under', 'until', 'up', 'upon', 'us', 'very', 'via', 'was', 'we', 'were', 'what', 'whatever', 'when',
  'whenever', 'where', 'whether', 'which', 'while', 'who', 'whom', 'whose', 'why', 'will', 'with', 'within',
  'without', 'would', 'yet', 'you', 'your', 'yours', 'yourself', 'yourselves', 'also', 'another', 'anything',
  'something', 'everything', 'nothing', 'thing', 'things', 'one', 'ones', 'much', 'many', 'lot', 'lots', 'really',
  // contraction remains after splitting on the apostrophe ("don't" -> "don", "t")
  'don', 'doesn', 'didn', 'isn', 'aren', 'wasn', 'weren', 'hasn', 'haven', 'hadn', 'won', 'wouldn', 'shouldn',
  'couldn', 'mustn', 'needn', 'let', 'll', 're', 've', 'im', 'ive', 'id',
  // chat filler: greetings, politeness, requests ("can you help me make ...")
  'hello', 'hi', 'hey', 'hiya', 'howdy', 'thanks', 'thank', 'thx', 'please', 'pls', 'ok', 'okay', 'yes', 'yeah',
  'yep', 'nope', 'sure', 'cool', 'great', 'nice', 'good', 'fine', 'well', 'oh', 'ah', 'um', 'uh', 'hmm', 'lol',
  'help', 'want', 'wants', 'wanted', 'need', 'needs', 'like', 'make', 'makes', 'get', 'gets', 'got', 'give',
  'show', 'tell', 'try', 'go', 'going', 'know', 'think', 'see', 'look', 'able', 'kind', 'maybe', 'bit', 'quick',
  'quickly', 'still', 'even', 'way',
  // skill-description boilerplate ("Use when the user asks ...")
  'use', 'used', 'uses', 'using', 'user', 'users', 'ask', 'asks', 'asked', 'asking', 'mention', 'mentions',
  'mentioned', 'request', 'requests', 'requested', 'including', 'include', 'includes', 'e', 'g', 'ie', 'eg',
]);

// Han/kana runs have no spaces between words; split them from adjacent Latin ("csv转换成json" -> csv, 转换成, json).
const WORD_RE =
  /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]+|(?:(?![\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}])[\p{L}\p{N}\p{M}])+/gu;

/**
 * Light English suffix stripping, the same on both sides of the index. Not Porter: it only has to make the common
 * verb/noun forms of one word meet ("convert", "converting", "converter"; "file", "files"), and an over-eager rule
 * costs little because both sides are stripped alike. Stems stay at least 3 characters.
 */
export function stem(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  const cut = (suffix: string, undouble = false): string | null => {
    if (!word.endsWith(suffix)) return null;
    let base = word.slice(0, -suffix.length);
    if (base.length < 3) return null;
    if (undouble && /([b-df-hj-km-np-rtv-z])\1$/.test(base) && !/(ll|ss|zz)$/.test(base)) base = base.slice(0, -1);
    return base;
  };
  const dropE = (base: string) => (base.endsWith('e') && base.length > 3 ? base.slice(0, -1) : base);
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  const direct = cut('ions') ?? cut('ion') ?? cut('ings', true) ?? cut('ing', true) ?? cut('ed', true);
  if (direct) return direct;
  const agent = cut('ers') ?? cut('er');
  if (agent) return agent;
  if (/(s|x|z|ch|sh)es$/.test(word)) return cut('es') ?? word;
  if (word.endsWith('s') && !/(ss|us|is)$/.test(word)) return dropE(word.slice(0, -1));
  return dropE(word);
}

/** Text -> distinct meaningful terms, in order of first appearance. */
export function analyze(text: string): string[] {
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const m of text.normalize('NFKC').toLowerCase().matchAll(WORD_RE)) {
    const word = m[0];
    if (word.length < 2 || STOP_WORDS.has(word)) continue;
    const term = stem(word);
    if (!seen.has(term)) {
      seen.add(term);
      terms.push(term);
    }
  }
  return terms;
}

interface IndexedDoc {
  id: number;
  name: string;
  description: string;
}

const byRelevance = (a: Scored, b: Scored) =>
  Number(b.namePrefix) - Number(a.namePrefix) || b.score - a.score || b.bm25 - a.bm25 || compareNames(a.name, b.name);

interface Scored extends RankedSkill {
  bm25: number;
  namePrefix: boolean;
}

export function createMatcher(skills: ReadonlyArray<{ name: string; description: string }>): Matcher {
  const names = skills.map((s) => s.name);
  const sortedNames = [...names].sort(compareNames);
  const lowerNames = names.map((n) => n.normalize('NFKC').toLowerCase());
  const total = skills.length;

  // Documents are analysed once here and handed over as space-joined terms, so minisearch indexes exactly the
  // terms queries are analysed into.
  const index = new MiniSearch<IndexedDoc>({
    fields: ['name', 'description'],
    tokenize: (text) => text.split(' '),
    processTerm: (term) => term || null,
    searchOptions: { boost: { name: 3 }, combineWith: 'OR' },
  });
  index.addAll(
    skills.map((s, id) => ({ id, name: analyze(s.name).join(' '), description: analyze(s.description).join(' ') })),
  );

  const idf = (df: number) => Math.log(1 + (total - df + 0.5) / (df + 0.5));

  function score(text: string, typing: boolean): Scored[] {
    const terms = analyze(text);
    const prefixed = (term: string, i: number) =>
      term.length >= MIN_PREFIX_LENGTH || (typing && i === terms.length - 1);
    const results: SearchResult[] = terms.length
      ? index.search(terms.join(' '), { prefix: (term, i) => prefixed(term, i) })
      : [];

    const df = new Map<string, number>();
    for (const r of results) for (const t of r.queryTerms) df.set(t, (df.get(t) ?? 0) + 1);
    const weight = (t: string) => {
      const n = df.get(t) ?? 0;
      return n === 0 ? 1 : Math.min(1, idf(n) / idf(1));
    };
    const weights = terms.map(weight);
    const denominator = Math.min(
      weights.reduce((a, b) => a + b, 0),
      LONG_QUERY_CAP,
    );

    const scored = new Map<number, Scored>();
    for (const r of results) {
      let covered = 0;
      terms.forEach((term, i) => {
        let credit = 0;
        for (const [docTerm, fields] of Object.entries(r.match)) {
          const exact = docTerm === term;
          if (!exact && !(prefixed(term, i) && docTerm.startsWith(term))) continue;
          const fieldCredit = fields.includes('name') ? NAME_CREDIT : DESCRIPTION_CREDIT;
          credit = Math.max(credit, exact ? fieldCredit : fieldCredit * PREFIX_FACTOR);
        }
        covered += weights[i]! * credit;
      });
      const id = r.id as number;
      scored.set(id, {
        name: names[id]!,
        score: Math.min(1, covered / denominator),
        bm25: r.score,
        namePrefix: false,
      });
    }

    // The slash menu: "/pd" must offer "pdf" first even though "pd" is no word of it. Only while typing: as a
    // complete message "hi" must not select "hiring-pipeline".
    const raw = text.trim().normalize('NFKC').toLowerCase();
    if (typing && raw && !/\s/.test(raw)) {
      lowerNames.forEach((lower, id) => {
        if (!lower.startsWith(raw)) return;
        const existing = scored.get(id);
        scored.set(id, { name: names[id]!, score: 1, bm25: existing?.bm25 ?? 0, namePrefix: true });
      });
    }
    return [...scored.values()].sort(byRelevance);
  }

  const strip = ({ name, score }: Scored): RankedSkill => ({ name, score });

  return {
    rank(text, limit = Number.POSITIVE_INFINITY) {
      if (!text.trim()) return sortedNames.slice(0, limit).map((name) => ({ name, score: 0 }));
      return score(text, true).slice(0, limit).map(strip);
    },
    match(text, limit = Number.POSITIVE_INFINITY) {
      return score(text, false)
        .filter((s) => s.score >= MATCH_THRESHOLD)
        .slice(0, limit)
        .map(strip);
    },
  };
}
