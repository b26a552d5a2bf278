/**
 * The matcher's index (match.ts scores over it): every skill's terms as numbers into one sorted vocabulary, in flat
 * typed arrays instead of a Map and a string array per skill.
 *
 * Why flat: `skills match` answers one query in a fresh process. Rebuilding per-skill Maps from a kept index of
 * 10,000 skills, and collecting them afterwards, cost more than twice the query itself (~550 ms of a ~1,100 ms run).
 * Kept as bytes (`encodeIndex`), this form loads by parsing two string arrays and wrapping typed arrays; the server
 * builds the very same structure from the skills (`buildIndex`), so both rank with one scorer over one structure.
 *
 *   vocabulary     every term once, sorted (code units, as `<` compares): a term's id is its position, and the
 *                  terms a prefix starts are one contiguous range of ids
 *   postings       per term (postingStart[id] .. postingStart[id + 1]): the skills that have it, ascending, and the
 *                  term's field in each (postingField)
 *   sequences      per skill (sequenceStart[doc] .. sequenceStart[doc + 1]): its name's term ids, SEPARATOR, its
 *                  description's, in order, for phrases and acronyms
 */
import { termSequence } from './match-analyze';

/** Field of a term in a skill: the best one wins. */
export const NAME = 3;
export const TRIGGER = 2;
export const REPEATED = 1;
export const DESCRIPTION = 0;

/** Between a skill's name and its description in its sequence: no phrase or acronym spans it. */
const SEPARATOR = -1;

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
  postingDoc: Int32Array;
  postingField: Uint8Array;
  sequenceStart: Int32Array;
  sequence: Int32Array;
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
  readonly postingDoc: Int32Array;
  readonly postingField: Uint8Array;
  readonly total: number;
  private readonly sequenceStart: Int32Array;
  private readonly sequence: Int32Array;
  private fieldCounts: Int32Array | null = null;
  /** Per term: its first character when it is 3+ characters long (acronym letters), else -1. */
  private initials: Int32Array | null = null;
  private readonly expansionCache = new Map<string, string[][]>();

  constructor(arrays: IndexArrays) {
    this.names = arrays.names;
    this.vocabulary = arrays.vocabulary;
    this.postingStart = arrays.postingStart;
    this.postingDoc = arrays.postingDoc;
    this.postingField = arrays.postingField;
    this.sequenceStart = arrays.sequenceStart;
    this.sequence = arrays.sequence;
    this.total = arrays.names.length;
  }

  /** The stored arrays, for `encodeIndex`. */
  arrays(): IndexArrays {
    const { names, vocabulary, postingStart, postingDoc, postingField, sequenceStart, sequence } = this;
    return {
      names: [...names],
      vocabulary: [...vocabulary],
      postingStart,
      postingDoc,
      postingField,
      sequenceStart,
      sequence,
    };
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

  /** The term's field in the skill, or -1 when the skill does not use it (a binary search of its postings). */
  field(doc: number, termId: number): number {
    const postingDoc = this.postingDoc;
    let lo = this.postingStart[termId]!;
    let hi = this.postingStart[termId + 1]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const d = postingDoc[mid]!;
      if (d === doc) return this.postingField[mid]!;
      if (d < doc) lo = mid + 1;
      else hi = mid;
    }
    return -1;
  }

  /** How many skills carry the term in their name. */
  nameDf(termId: number): number {
    let n = 0;
    for (let p = this.postingStart[termId]!; p < this.postingStart[termId + 1]!; p++) {
      if (this.postingField[p] === NAME) n++;
    }
    return n;
  }

  /** How many distinct terms the skill has. */
  fieldCount(doc: number): number {
    if (!this.fieldCounts) {
      const counts = new Int32Array(this.total);
      const postingDoc = this.postingDoc;
      for (let p = 0; p < postingDoc.length; p++) counts[postingDoc[p]!]!++;
      this.fieldCounts = counts;
    }
    return this.fieldCounts[doc]!;
  }

  /** The skills that use every one of these terms, ascending (one merge of their postings). */
  docsWithAll(termIds: readonly number[]): number[] {
    if (termIds.length === 0 || termIds.some((id) => id < 0)) return [];
    const { postingStart, postingDoc } = this;
    const at = termIds.map((id) => postingStart[id]!);
    const ends = termIds.map((id) => postingStart[id + 1]!);
    const docs: number[] = [];
    outer: for (let p = at[0]!; p < ends[0]!; p++) {
      const doc = postingDoc[p]!;
      for (let k = 1; k < termIds.length; k++) {
        let q = at[k]!;
        while (q < ends[k]! && postingDoc[q]! < doc) q++;
        at[k] = q;
        if (q === ends[k]) break outer;
        if (postingDoc[q] !== doc) continue outer;
      }
      docs.push(doc);
    }
    return docs;
  }

  /** Whether the terms stand next to each other, in order, somewhere in the skill's text. */
  containsRun(doc: number, termIds: readonly number[]): boolean {
    if (termIds.some((id) => id < 0)) return false;
    const sequence = this.sequence;
    const end = this.sequenceStart[doc + 1]! - termIds.length;
    outer: for (let i = this.sequenceStart[doc]!; i <= end; i++) {
      for (let k = 0; k < termIds.length; k++) if (sequence[i + k] !== termIds[k]) continue outer;
      return true;
    }
    return false;
  }

  /**
   * The expansions the catalog gives an acronym: runs of 2-5 adjacent terms (each 3+ characters) in any skill's text
   * whose initials spell it ("pr" and "pull request"), first found first. A linear pass over the catalog's term ids,
   * once per acronym asked.
   */
  expansions(acronym: string): string[][] {
    const cached = this.expansionCache.get(acronym);
    if (cached) return cached;
    if (!this.initials) {
      this.initials = Int32Array.from(this.vocabulary, (t) => (t.length >= 3 ? t.charCodeAt(0) : -1));
    }
    const initials = this.initials;
    const sequence = this.sequence;
    const n = acronym.length;
    const letters = Array.from({ length: n }, (_, k) => acronym.charCodeAt(k));
    const found = new Map<string, string[]>();
    for (let doc = 0; doc < this.total; doc++) {
      const end = this.sequenceStart[doc + 1]! - n;
      for (let i = this.sequenceStart[doc]!; i <= end; i++) {
        let k = 0;
        while (k < n) {
          const id = sequence[i + k]!;
          if (id === SEPARATOR || initials[id] !== letters[k]) break;
          k++;
        }
        if (k < n) continue;
        const words = Array.from(sequence.subarray(i, i + n), (id) => this.vocabulary[id]!);
        if (!words.includes(acronym)) found.set(words.join(' '), words);
      }
    }
    const result = [...found.values()];
    if (this.expansionCache.size < 1000) this.expansionCache.set(acronym, result);
    return result;
  }
}

/** The index of these skills (their order gives the ids). */
export function buildIndex(skills: ReadonlyArray<{ name: string; description: string }>): MatchIndex {
  const analyzed = skills.map((s) => analyzeSkill(s.name, s.description));
  const seen = new Set<string>();
  for (const { fields } of analyzed) for (const term of fields.keys()) seen.add(term);
  const vocabulary = [...seen].sort();
  const ids = new Map(vocabulary.map((term, id) => [term, id]));

  const postingStart = new Int32Array(vocabulary.length + 1);
  for (const { fields } of analyzed) for (const term of fields.keys()) postingStart[ids.get(term)! + 1]!++;
  for (let id = 0; id < vocabulary.length; id++) postingStart[id + 1]! += postingStart[id]!;
  const postingDoc = new Int32Array(postingStart[vocabulary.length]!);
  const postingField = new Uint8Array(postingDoc.length);
  const next = postingStart.slice(0, vocabulary.length);
  const sequenceStart = new Int32Array(skills.length + 1);
  analyzed.forEach(({ fields, sequence }, doc) => {
    for (const [term, field] of fields) {
      const p = next[ids.get(term)!]!++;
      postingDoc[p] = doc;
      postingField[p] = field;
    }
    sequenceStart[doc + 1] = sequenceStart[doc]! + sequence.length;
  });
  const sequence = new Int32Array(sequenceStart[skills.length]!);
  let at = 0;
  for (const doc of analyzed) for (const term of doc.sequence) sequence[at++] = term ? ids.get(term)! : SEPARATOR;

  return new MatchIndex({
    names: skills.map((s) => s.name),
    vocabulary,
    postingStart,
    postingDoc,
    postingField,
    sequenceStart,
    sequence,
  });
}

/**
 * Bytes: MAGIC, the JSON's length (u32), JSON `[names, vocabulary]`, padding to 4 bytes, then the Int32 arrays
 * (postingStart, postingDoc, sequenceStart, sequence) and postingField, in this machine's byte order (the bytes are
 * kept in this machine's cache only). Their lengths follow from the JSON: vocabulary + 1, postingStart's last,
 * names + 1, sequenceStart's last.
 */
const MAGIC = 'SKMI0001';

export function encodeIndex(index: MatchIndex): Uint8Array {
  const { names, vocabulary, postingStart, postingDoc, postingField, sequenceStart, sequence } = index.arrays();
  const json = Buffer.from(JSON.stringify([names, vocabulary]));
  const head = MAGIC.length + 4;
  const ints = head + json.length + ((4 - ((head + json.length) % 4)) % 4);
  const intArrays = [postingStart, postingDoc, sequenceStart, sequence];
  const intBytes = intArrays.reduce((sum, a) => sum + a.byteLength, 0);
  const bytes = new Uint8Array(ints + intBytes + postingField.byteLength);
  bytes.set(Buffer.from(MAGIC, 'latin1'), 0);
  new DataView(bytes.buffer).setUint32(MAGIC.length, json.length, true);
  bytes.set(json, head);
  let at = ints;
  for (const a of intArrays) {
    bytes.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at += a.byteLength;
  }
  bytes.set(postingField, at);
  return bytes;
}

/** The index `encodeIndex` stored; throws on bytes that are not one (truncated, garbled, another format). */
export function decodeIndex(input: Uint8Array): MatchIndex {
  // Int32Array views need a 4-byte aligned offset: bytes that start elsewhere (after the snapshot's header) are
  // copied once (a Buffer's slice() would not copy).
  const bytes = input.byteOffset % 4 === 0 ? input : new Uint8Array(input);
  const fail = (why: string): never => {
    throw new Error(`decodeIndex: ${why}`);
  };
  if (
    bytes.length < MAGIC.length + 4 ||
    Buffer.from(bytes.buffer, bytes.byteOffset, MAGIC.length).toString('latin1') !== MAGIC
  ) {
    fail('not a matcher index');
  }
  const jsonLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(MAGIC.length, true);
  const head = MAGIC.length + 4;
  if (head + jsonLength > bytes.length) fail('truncated');
  const parsed: unknown = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + head, jsonLength).toString());
  if (!Array.isArray(parsed) || parsed.length !== 2 || !Array.isArray(parsed[0]) || !Array.isArray(parsed[1])) {
    fail('no names and vocabulary');
  }
  const [names, vocabulary] = parsed as [string[], string[]];
  let at = head + jsonLength + ((4 - ((head + jsonLength) % 4)) % 4);
  const ints = (length: number) => {
    if (at + length * 4 > bytes.length) fail('truncated');
    const array = new Int32Array(bytes.buffer, bytes.byteOffset + at, length);
    at += length * 4;
    return array;
  };
  const postingStart = ints(vocabulary.length + 1);
  const postingDoc = ints(postingStart[vocabulary.length]!);
  const sequenceStart = ints(names.length + 1);
  const sequence = ints(sequenceStart[names.length]!);
  if (at + postingDoc.length !== bytes.length) fail('wrong length');
  const postingField = new Uint8Array(bytes.buffer, bytes.byteOffset + at, postingDoc.length);
  checkIndex({ names, vocabulary, postingStart, postingDoc, postingField, sequenceStart, sequence }) || fail('garbled');
  return new MatchIndex({ names, vocabulary, postingStart, postingDoc, postingField, sequenceStart, sequence });
}

/**
 * Whether every number points where the scorer will look (a garbled byte must not read past an array), the
 * vocabulary is sorted and each term's postings ascend: one pass, ~1 ms for 10,000 skills.
 */
function checkIndex(a: IndexArrays): boolean {
  const total = a.names.length;
  const terms = a.vocabulary.length;
  if (!a.names.every((n) => typeof n === 'string')) return false;
  for (let i = 0; i < terms; i++) {
    if (typeof a.vocabulary[i] !== 'string' || (i > 0 && !(a.vocabulary[i - 1]! < a.vocabulary[i]!))) return false;
  }
  if (a.postingStart[0] !== 0 || a.sequenceStart[0] !== 0) return false;
  for (let id = 0; id < terms; id++) {
    const from = a.postingStart[id]!;
    const to = a.postingStart[id + 1]!;
    if (to < from) return false;
    let previous = -1;
    for (let p = from; p < to; p++) {
      const doc = a.postingDoc[p]!;
      if (doc <= previous || doc >= total || a.postingField[p]! > NAME) return false;
      previous = doc;
    }
  }
  for (let doc = 0; doc < total; doc++) if (a.sequenceStart[doc + 1]! < a.sequenceStart[doc]!) return false;
  const sequence = a.sequence;
  for (let i = 0; i < sequence.length; i++) if (sequence[i]! < SEPARATOR || sequence[i]! >= terms) return false;
  return true;
}
