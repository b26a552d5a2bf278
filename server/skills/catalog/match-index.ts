/**
 * The matcher's index (match.ts scores over it): every skill's terms as numbers into one sorted vocabulary, in flat
 * typed arrays instead of a Map and a string array per skill.
 *
 * Why flat: `skills match` answers one query in a fresh process. Rebuilding per-skill Maps from a kept index of
 * 10,000 skills, and collecting them afterwards, costs more than the query itself.
 * Kept as bytes (`encodeIndex`), this form loads by parsing two string arrays and wrapping typed arrays; the server
 * builds the very same structure from the skills (`buildIndex`), so both rank with one scorer over one structure.
 *
 *   vocabulary     every term once, sorted (code units, as `<` compares): a term's id is its position, and the
 *                  terms a prefix starts are one contiguous range of ids
 *   postings       per term (postingStart[id] .. postingStart[id + 1]): the skills that have it, ascending, and the
 *                  term's field in each (postingField)
 *   sequences      per skill (sequenceStart[doc] .. sequenceStart[doc + 1]): its name's term ids, the separator
 *                  (the id after the last term's), its description's, in order, for phrases and acronyms
 *
 * Skill and term ids take 16 bits where they fit (10,000 skills, tens of thousands of terms): the kept bytes are read
 * and touched once per run, and on a busy machine each megabyte costs a one-shot query several milliseconds.
 */
import { unshared } from '../load/unshared';
import { termSequence } from './match-analyze';

/** Field of a term in a skill: the best one wins. */
export const NAME = 3;
export const TRIGGER = 2;
export const REPEATED = 1;
export const DESCRIPTION = 0;

/** Words a description puts in double quotes: the author naming what people say ("deck," "slides"). */
const QUOTED = /["\u201c]([^"\u201c\u201d\n]{1,40})["\u201d]/g;

function analyzeSkill(name: string, description: string): { fields: Map<string, number>; sequence: string[] } {
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

/** The arrays an index is made of (see the module comment); what `encodeIndex` stores. */
export interface IndexArrays {
  names: string[];
  vocabulary: string[];
  postingStart: Int32Array;
  postingDoc: Ids;
  postingField: Uint8Array;
  sequenceStart: Int32Array;
  /** Term ids; vocabulary.length between a skill's name and its description: no phrase or acronym spans it. */
  sequence: Ids;
  /**
   * Parallel to `sequence`: each term's first code unit when it is 3+ code units long, else 0 (and 0 for the
   * separator): the initials of every run of words, so an acronym's expansions are where a search finds it.
   */
  initials: Uint16Array;
  /** Per skill: how many distinct terms it has. */
  termCounts: Int32Array;
}

type Ids = Int32Array | Uint16Array;
const idsFor = (count: number, length: number): Ids =>
  count <= 0xffff ? new Uint16Array(length) : new Int32Array(length);

/** An acronym's expansion: the words, and the skills whose text has them in a row (ascending). */
export interface Expansion {
  words: string[];
  docs: number[];
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

export class MatchIndex {
  readonly names: readonly string[];
  readonly vocabulary: readonly string[];
  readonly postingStart: Int32Array;
  readonly postingDoc: Ids;
  readonly postingField: Uint8Array;
  readonly sequenceStart: Int32Array;
  readonly sequence: Ids;
  readonly initials: Uint16Array;
  readonly termCounts: Int32Array;
  readonly total: number;
  private readonly expansionCache = new Map<string, Expansion[]>();

  constructor(arrays: IndexArrays) {
    this.names = arrays.names;
    this.vocabulary = arrays.vocabulary;
    this.postingStart = arrays.postingStart;
    this.postingDoc = arrays.postingDoc;
    this.postingField = arrays.postingField;
    this.sequenceStart = arrays.sequenceStart;
    this.sequence = arrays.sequence;
    this.initials = arrays.initials;
    this.termCounts = arrays.termCounts;
    this.total = arrays.names.length;
  }

  /** The term's id, or -1 when no skill uses it. */
  termId(term: string): number {
    const i = lowerBound(this.vocabulary, term);
    return i < this.vocabulary.length && this.vocabulary[i] === term ? i : -1;
  }

  /** Ids of the terms that start with `prefix`, the term itself included: [from, to). */
  prefixRange(prefix: string): [number, number] {
    const vocabulary = this.vocabulary;
    const from = lowerBound(vocabulary, prefix);
    let to = from;
    while (to < vocabulary.length && vocabulary[to]!.startsWith(prefix)) to++;
    return [from, to];
  }

  /** How many skills carry the term in their name. */
  nameDf(termId: number): number {
    let n = 0;
    for (let p = this.postingStart[termId]!; p < this.postingStart[termId + 1]!; p++) {
      if (this.postingField[p] === NAME) n++;
    }
    return n;
  }

  /**
   * The expansions the catalog gives an acronym: runs of 2-5 adjacent terms (each 3+ characters) in a skill's text
   * whose initials spell it ("pr" and "pull request"), first found first. A native search of the catalog's initials
   * (as bytes: no string of them is made): a scan of every term id in JavaScript was a visible cost per acronym in a
   * one-shot `skills match`.
   */
  expansions(acronym: string): Expansion[] {
    const cached = this.expansionCache.get(acronym);
    if (cached) return cached;
    const initials = Buffer.from(this.initials.buffer, this.initials.byteOffset, this.initials.byteLength);
    // Code units in this machine's byte order, as `initials` holds them.
    const needle = new Uint8Array(Uint16Array.from(acronym, (c) => c.charCodeAt(0)).buffer);
    const n = acronym.length;
    const found = new Map<string, Expansion>();
    let doc = 0;
    for (let byte = initials.indexOf(needle); byte >= 0; byte = initials.indexOf(needle, byte + 1)) {
      if (byte % 2 === 1) continue; // straddles two code units
      const at = byte / 2;
      while (this.sequenceStart[doc + 1]! <= at) doc++;
      if (at + n > this.sequenceStart[doc + 1]!) continue; // runs into the next skill's text
      const words = Array.from(this.sequence.subarray(at, at + n), (id) => this.vocabulary[id]!);
      if (words.includes(acronym)) continue;
      const key = words.join(' ');
      const expansion = found.get(key);
      if (!expansion) found.set(key, { words, docs: [doc] });
      else if (expansion.docs.at(-1) !== doc) expansion.docs.push(doc);
    }
    const result = [...found.values()];
    if (this.expansionCache.size < 1000) this.expansionCache.set(acronym, result);
    return result;
  }
}

/**
 * The index of these skills (their order gives the ids). Each skill is analysed twice, once for the vocabulary and the
 * sizes, once to fill the arrays, and nothing per skill is kept in between: a Map and a term array per skill, all
 * alive until the end (or arrays grown as the terms came in), lived long enough to be promoted, and stayed in a
 * server's heap as garbage until its next full collection, most of what a scan of 10,000 skills left behind. The
 * second pass finds its stems cached.
 */
export function buildIndex(skills: ReadonlyArray<{ name: string; description: string }>): MatchIndex {
  const postings = new Map<string, number>();
  const sequenceStart = new Int32Array(skills.length + 1);
  skills.forEach((s, doc) => {
    const { fields, sequence } = analyzeSkill(s.name, s.description);
    for (const term of fields.keys()) postings.set(term, (postings.get(term) ?? 0) + 1);
    sequenceStart[doc + 1] = sequenceStart[doc]! + sequence.length;
  });
  // The index keeps its terms: strings of their own, not slices of the texts they were read from.
  const vocabulary = Array.from(postings.keys(), unshared).sort();
  const ids = new Map(vocabulary.map((term, id) => [term, id]));

  const postingStart = new Int32Array(vocabulary.length + 1);
  vocabulary.forEach((term, id) => {
    postingStart[id + 1] = postingStart[id]! + postings.get(term)!;
  });
  // Term ids go up to the separator (vocabulary.length).
  const postingDoc = idsFor(skills.length, postingStart[vocabulary.length]!);
  const postingField = new Uint8Array(postingDoc.length);
  const next = postingStart.slice(0, vocabulary.length);
  const termCounts = new Int32Array(skills.length);
  const sequence = idsFor(vocabulary.length + 1, sequenceStart[skills.length]!);
  const initials = new Uint16Array(sequence.length);
  skills.forEach((s, doc) => {
    const { fields, sequence: terms } = analyzeSkill(s.name, s.description);
    termCounts[doc] = fields.size;
    for (const [term, field] of fields) {
      const p = next[ids.get(term)!]!++;
      postingDoc[p] = doc;
      postingField[p] = field;
    }
    let at = sequenceStart[doc]!;
    for (const term of terms) {
      sequence[at] = term ? ids.get(term)! : vocabulary.length;
      initials[at] = term.length >= 3 ? term.charCodeAt(0) : 0;
      at++;
    }
  });
  return new MatchIndex({
    names: skills.map((s) => s.name),
    vocabulary,
    postingStart,
    postingDoc,
    postingField,
    sequenceStart,
    sequence,
    initials,
    termCounts,
  });
}

/**
 * Bytes: MAGIC, the JSON's length (u32), JSON `[names, vocabulary]`, then postingStart, sequenceStart, termCounts,
 * postingDoc, sequence, initials and postingField, each from a 4-byte boundary, in this machine's byte order (the
 * bytes are kept in this machine's cache only). Their lengths and widths follow from the JSON and the offsets.
 */
const MAGIC = 'SKMI0002';
const HEAD = MAGIC.length + 4;

const padded = (length: number) => length + ((4 - (length % 4)) % 4);
type Stored = Int32Array | Uint16Array | Uint8Array;

export function encodeIndex(index: MatchIndex): Uint8Array {
  const { postingStart, sequenceStart, termCounts, postingDoc, sequence, initials, postingField } = index;
  const json = Buffer.from(JSON.stringify([index.names, index.vocabulary]));
  const arrays: Stored[] = [postingStart, sequenceStart, termCounts, postingDoc, sequence, initials, postingField];
  const bytes = new Uint8Array(arrays.reduce((at, a) => padded(at) + a.byteLength, HEAD + json.length));
  bytes.set(Buffer.from(MAGIC, 'latin1'), 0);
  new DataView(bytes.buffer).setUint32(MAGIC.length, json.length, true);
  bytes.set(json, HEAD);
  let at = HEAD + json.length;
  for (const a of arrays) {
    at = padded(at);
    bytes.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at += a.byteLength;
  }
  return bytes;
}

/**
 * The index `encodeIndex` stored; throws on bytes that are not one: another format, truncated, or garbled where it
 * matters for safety (the JSON, the offsets). Checking every number would cost a one-shot query as much as hashing
 * the bytes; a number garbled elsewhere can only mislead the ranking, never crash or hang it (an id out of
 * range reads `undefined` from a typed array, which counts as no hit).
 */
export function decodeIndex(input: Uint8Array): MatchIndex {
  // Typed array views need an aligned offset: bytes that start elsewhere are copied once.
  const bytes = input.byteOffset % 4 === 0 ? input : new Uint8Array(input);
  const fail = (why: string): never => {
    throw new Error(`decodeIndex: ${why}`);
  };
  const slice = (offset: number, length: number) => Buffer.from(bytes.buffer, bytes.byteOffset + offset, length);
  if (bytes.length < HEAD || slice(0, MAGIC.length).toString('latin1') !== MAGIC) fail('not a matcher index');
  const jsonLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(MAGIC.length, true);
  if (HEAD + jsonLength > bytes.length) fail('truncated');
  const parsed: unknown = JSON.parse(slice(HEAD, jsonLength).toString());
  if (!Array.isArray(parsed) || !isStrings(parsed[0]) || !isStrings(parsed[1])) fail('no names and vocabulary');
  const [names, vocabulary] = parsed as [string[], string[]];
  let at = HEAD + jsonLength;
  /** The next array, of `empty`'s type. */
  const take = <T extends Stored>(empty: T, length: number): T => {
    at = padded(at);
    if (!(length >= 0) || at + length * empty.BYTES_PER_ELEMENT > bytes.length) fail('truncated');
    const Type = empty.constructor as new (buffer: ArrayBufferLike, offset: number, length: number) => T;
    const view = new Type(bytes.buffer, bytes.byteOffset + at, length);
    at += view.byteLength;
    return view;
  };
  const postingStart = take(new Int32Array(0), vocabulary.length + 1);
  const sequenceStart = take(new Int32Array(0), names.length + 1);
  if (!ascending(postingStart) || !ascending(sequenceStart)) fail('garbled offsets');
  const termCounts = take(new Int32Array(0), names.length);
  const postingDoc = take(idsFor(names.length, 0), postingStart[vocabulary.length]!);
  const sequence = take(idsFor(vocabulary.length + 1, 0), sequenceStart[names.length]!);
  const initials = take(new Uint16Array(0), sequence.length);
  const postingField = take(new Uint8Array(0), postingDoc.length);
  if (at !== bytes.length) fail('wrong length');
  return new MatchIndex({
    names,
    vocabulary,
    postingStart,
    postingDoc,
    postingField,
    sequenceStart,
    sequence,
    initials,
    termCounts,
  });
}

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((v) => typeof v === 'string');

/** Offsets start at 0 and never go down (so every range they give lies within its array). */
function ascending(offsets: Int32Array): boolean {
  if (offsets[0] !== 0) return false;
  for (let i = 1; i < offsets.length; i++) if (offsets[i]! < offsets[i - 1]!) return false;
  return true;
}
