/**
 * Text -> terms for the matcher (match.ts): the same analysis on both sides of the index, so a skill's words and a
 * message's words meet. Stop words (English, chat filler, skill-description boilerplate), 1-character tokens and bare
 * numbers are dropped, the rest lightly stemmed.
 */
import { unshared } from '../load/unshared';

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
  // "any time a .pptx file is involved", "one at a time", "17 times 23": how often, not what about
  'time', 'times',
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
  const known = stemCache.get(word);
  if (known !== undefined) return known;
  // Copies: a long word is a slice of its whole (lower-cased) text, which the cache would otherwise keep.
  const stemmed = unshared(stemUncached(word));
  if (stemCache.size < STEM_CACHE_LIMIT) stemCache.set(unshared(word), stemmed);
  return stemmed;
}

// Catalog and message vocabularies are small next to their word counts: a stem is computed once per distinct word.
const stemCache = new Map<string, string>();
const STEM_CACHE_LIMIT = 200_000;

function stemUncached(word: string): string {
  const cut = (suffix: string, undouble = false): string | null => {
    if (!word.endsWith(suffix)) return null;
    let base = word.slice(0, -suffix.length);
    if (base.length < 3) return null;
    if (undouble && /([b-df-hj-km-np-rtv-z])\1$/.test(base) && !/(ll|ss|zz)$/.test(base)) base = base.slice(0, -1);
    return base;
  };
  const dropE = (base: string) => (base.endsWith('e') && base.length > 3 ? base.slice(0, -1) : base);
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  const direct =
    cut('ions') ?? cut('ion') ?? cut('ings', true) ?? cut('ing', true) ?? cut('ed', true) ?? cut('ives') ?? cut('ive');
  if (direct) return direct;
  const agent = cut('ers') ?? cut('er');
  if (agent) return agent;
  if (/(s|x|z|ch|sh)es$/.test(word)) return cut('es') ?? word;
  if (word.endsWith('s') && !/(ss|us|is)$/.test(word)) return dropE(word.slice(0, -1));
  return dropE(word);
}

/**
 * A file path with a folder ("scripts/echo.sh", "src\\app\\main.py"): its folder and base names are the person's
 * own names for things, not what the request is about, and would make "run scripts/x.sh" look like a request about
 * every skill that ships scripts. Only the extension, which says what kind of file it is, is kept. URLs (with `://`)
 * and slash pairs without an extension ("CI/CD", "HTML/CSS") are words and stay.
 */
const FILE_PATH_RE =
  /(?<![\w:/\\.~-])(?:~|\.{1,2})?[/\\]?(?:[\w.-]+[/\\])+[\w-]+(?:\.[\w-]+)*\.([a-z0-9]{1,8})(?![\w/\\])/giu;

function dropPathNames(text: string): string {
  return text.includes('/') || text.includes('\\') ? text.replace(FILE_PATH_RE, (_, ext: string) => ` ${ext} `) : text;
}

const NON_ASCII = /[^\x00-\x7f]/;
const ASCII_WORD_RE = /[a-z0-9]+/g;

/** Text -> meaningful terms in order, repeats kept (phrases are read from this sequence). */
export function termSequence(input: string): string[] {
  const text = dropPathNames(input);
  // Plain ASCII (most skill text) skips the Unicode-aware regex and NFKC, which cost most of a 10,000-skill index.
  const ascii = !NON_ASCII.test(text);
  const words = ascii ? text.toLowerCase().match(ASCII_WORD_RE) : text.normalize('NFKC').toLowerCase().match(WORD_RE);
  const terms: string[] = [];
  if (!words) return terms;
  for (const word of words) {
    if (word.length < 2 || STOP_WORDS.has(word)) continue;
    // A bare number ("10-slide", "3-year") says how much, not what about.
    if (ascii ? word.charCodeAt(0) <= 0x39 && /^\d+$/.test(word) : /^\p{N}+$/u.test(word)) continue;
    terms.push(stem(word));
  }
  return terms;
}

/** Text -> distinct meaningful terms, in order of first appearance. */
export function analyze(text: string): string[] {
  return [...new Set(termSequence(text))];
}
