/**
 * The catalog under a token budget. With a few skills it is `renderCatalog` unchanged; with thousands it cannot be:
 * 10,000 skills are ~750,000 tokens. What we do, in order (Codex and Claude Code do the same):
 *
 * 1. Everything fits: every skill, full descriptions.
 * 2. Shorten before leaving out: descriptions are trimmed fairly, the longest first, round-robin, at word
 *    boundaries with "…", down to MIN_DESCRIPTION_CHARS. Trimming the longest until all fit is the same as capping
 *    every description at one length C, so C is found by binary search (short descriptions stay whole).
 * 3. Leave out: when even the shortest descriptions do not fit, skills are ranked and listed best first:
 *    `pinned`, then relevance to the conversation (the matcher over `relevanceText`), then use (activation counts),
 *    then a stable hash of the name, so that with no other signal no name is favoured (never alphabetical). The
 *    block then says how many are not listed and that `skills_search` finds them.
 *
 * Presence (the access record, server/access/): `pinned` is always listed (even over budget), `listed` competes for
 * room, `searchable` is never listed but counted as not listed (skills_search finds it), `hidden` is not mentioned.
 *
 * Token counts are o200k (`countTokens`), counted once per distinct entry and cached, never by re-tokenising the
 * block in a loop: the block's count is the sum of its entries' (an upper bound: a separator shares a token with
 * its neighbours), checked once exactly at the end.
 */
import type { CatalogPresenceOf } from '../../access/presence';
import type { CatalogConfig } from '../../config';
import { catalogBlock } from '../../prompt/catalog-block';
import { catalogDescription } from '../load/arguments';
import { compareNames } from '../name-order';
import { countTokens, renderCatalog } from './catalog';
import { createMatcher, type Matcher } from './match';

export const DEFAULT_BUDGET_TOKENS = 4000;
export const DEFAULT_BUDGET_PERCENT = 2;
/** Descriptions are not trimmed below this (characters): shorter than a sentence says too little to choose by. */
export const MIN_DESCRIPTION_CHARS = 100;
/** Only the end of a long conversation decides relevance. */
const MAX_RELEVANCE_CHARS = 1000;
const ELLIPSIS = '…';
const LISTED = { catalog: 'listed', pinned: false } as const;

export interface CatalogSkill {
  name: string;
  description: string;
  /** `when_to_use` (an extension) is appended to the description in the catalog. */
  frontmatter?: { when_to_use?: string };
}

export interface BudgetOptions {
  budgetTokens: number;
  /** Recent conversation text: skills relevant to it are kept when some must be left out. */
  relevanceText?: string;
  /** Activations per skill name (all chats): used skills are kept before unused ones. */
  usage?: ReadonlyMap<string, number>;
  /** Each skill's catalog presence (its access record); missing names are `listed`. */
  access?: CatalogPresenceOf;
  /**
   * A matcher over these skills (the registry keeps one), or a function giving one: only called when skills must be
   * left out and `relevanceText` is given. Built here from the skills when absent.
   */
  matcher?: Matcher | (() => Matcher);
}

export interface BudgetedCatalog {
  /** The JSON block for the instructions: `{"available_skills":[...]}`, plus `not_listed` and `note` when needed. */
  catalog: string;
  /** Names in the block, in block order (by name). */
  listed: string[];
  /** Skills `skills_search` can find that are not in the block (left out for room, or in `search` mode). */
  omitted: number;
  /** o200k tokens of `catalog`. */
  tokens: number;
  /** Listed skills whose description was shortened. */
  shortened: number;
  budgetTokens: number;
}

/**
 * The catalog's budget: `budgetPercent` (default 2%) of the model's context window when it is known, else
 * `budgetTokens` (default 4000).
 */
export function catalogBudget(contextWindow: number | undefined, config: { catalog?: CatalogConfig }): number {
  if (contextWindow && contextWindow > 0) {
    return Math.floor((contextWindow * (config.catalog?.budgetPercent ?? DEFAULT_BUDGET_PERCENT)) / 100);
  }
  return config.catalog?.budgetTokens ?? DEFAULT_BUDGET_TOKENS;
}

// Token counts per rendered entry, shared by every call: the same skills come back turn after turn.
const tokenCache = new Map<string, number>();
const TOKEN_CACHE_LIMIT = 100_000;

function tokensOf(text: string): number {
  let n = tokenCache.get(text);
  if (n === undefined) {
    if (tokenCache.size >= TOKEN_CACHE_LIMIT) tokenCache.clear();
    n = countTokens(text);
    tokenCache.set(text, n);
  }
  return n;
}

function renderEntry(name: string, description: string): string {
  return JSON.stringify({ name, description });
}

/** `text` cut to at most `max` characters at a word boundary, with "…"; unchanged when it is short enough. */
export function shortenDescription(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(1, max - ELLIPSIS.length));
  const code = cut.charCodeAt(cut.length - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut = cut.slice(0, -1); // never split a surrogate pair
  const space = cut.search(/\s\S*$/);
  if (space >= cut.length * 0.6) cut = cut.slice(0, space);
  return `${cut.replace(/[\s,;:.\-–—(]+$/u, '')}${ELLIPSIS}`;
}

interface Entry {
  name: string;
  description: string;
  pinned: boolean;
  source: CatalogSkill;
}

// Whole-entry counts by skill object: registry skills keep their identity across rescans while unchanged, so a
// catalog of 10,000 skills does not even hash 10,000 strings per turn.
const fullTokens = new WeakMap<object, { name: string; description: string; tokens: number }>();

function fullCost(e: Entry): number {
  const known = fullTokens.get(e.source);
  if (known && known.name === e.name && known.description === e.description) return known.tokens;
  const tokens = tokensOf(renderEntry(e.name, e.description));
  fullTokens.set(e.source, { name: e.name, description: e.description, tokens });
  return tokens;
}

/** FNV-1a: a stable order that favours no name (alphabetical order would always drop the same end of the list). */
function hashName(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Tokens of the block around the entries (with the note when `notListed` > 0). */
function wrapperTokens(notListed: number): number {
  return tokensOf(catalogBlock([], notListed));
}

function descriptionAt(entry: Entry, cap: number): string {
  return shortenDescription(entry.description, Math.max(cap, MIN_DESCRIPTION_CHARS));
}

function costAt(entry: Entry, cap: number): number {
  if (entry.description.length <= Math.max(cap, MIN_DESCRIPTION_CHARS)) return fullCost(entry);
  return tokensOf(renderEntry(entry.name, descriptionAt(entry, cap)));
}

/** Sum of costs at `cap`, stopping early once over `limit`. */
function totalAt(entries: readonly Entry[], cap: number, limit: number): number {
  let total = 0;
  for (const e of entries) {
    total += costAt(e, cap);
    if (total > limit) break;
  }
  return total;
}

/** Tokens of an entry with an empty description: what shortening can never save. */
function nameCost(entry: Entry): number {
  return tokensOf(renderEntry(entry.name, ''));
}

/** Estimated cost at `cap`: the description's tokens in proportion to the characters kept, plus "…". */
function estimateAt(entry: Entry, cap: number): number {
  const length = entry.description.length;
  if (length <= cap) return fullCost(entry);
  const fixed = nameCost(entry);
  return fixed + Math.ceil(((fullCost(entry) - fixed) * cap) / length) + 1;
}

/**
 * The largest description cap (>= the minimum) at which `entries` fit `room`, or null when none does. Binary search
 * on estimates (no tokenising per probe), then exact counts, stepping down until the entries really fit.
 */
function fitCap(entries: readonly Entry[], room: number): number | null {
  const longest = entries.reduce((m, e) => Math.max(m, e.description.length), 0);
  if (totalAt(entries, longest, room) <= room) return longest;
  if (totalAt(entries, MIN_DESCRIPTION_CHARS, room) > room) return null;
  let lo = MIN_DESCRIPTION_CHARS;
  let hi = longest;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    let total = 0;
    for (const e of entries) total += estimateAt(e, mid);
    if (total <= room) lo = mid;
    else hi = mid;
  }
  for (let cap = lo, attempt = 0; attempt < 8 && cap > MIN_DESCRIPTION_CHARS; attempt++) {
    const total = totalAt(entries, cap, Number.POSITIVE_INFINITY);
    if (total <= room) return cap;
    cap = Math.max(MIN_DESCRIPTION_CHARS, Math.floor(cap * Math.min(0.97, room / total)));
  }
  return MIN_DESCRIPTION_CHARS;
}

function render(entries: readonly Entry[], cap: number, notListed: number) {
  const shown = entries
    .map((e) => ({ name: e.name, description: descriptionAt(e, cap), original: e.description }))
    .sort((a, b) => compareNames(a.name, b.name) || compareNames(a.description, b.description));
  const catalog = catalogBlock(
    shown.map((e) => renderEntry(e.name, e.description)),
    notListed,
  );
  return {
    catalog,
    listed: shown.map((e) => e.name),
    shortened: shown.filter((e) => e.description !== e.original).length,
  };
}

/**
 * What one skill list and one set of access records give every call: the entries that compete for room, and the
 * results built so far. The registry hands over the same array (and the resolver the same records) until the next
 * scan or override, so a new chat's catalog is usually one lookup: it depends only on the budget and, when skills
 * must be left out, on the ranking's inputs (relevance scores and use), which are part of the key.
 */
interface Memo {
  access: CatalogPresenceOf | undefined;
  pool: Entry[];
  byName: Map<string, Entry>;
  searchOnly: number;
  /** By budget: the whole (maybe shortened) catalog, or RANKED when skills must be left out; by full key: those. */
  results: Map<string, BudgetedCatalog | typeof RANKED>;
}
const RANKED = Symbol('ranked');
const MEMO_RESULTS_LIMIT = 256;
const memos = new WeakMap<object, Memo>();

function memoOf(skills: ReadonlyArray<CatalogSkill>, access: CatalogPresenceOf | undefined): Memo {
  const known = memos.get(skills);
  if (known && known.access === access) return known;
  const pool: Entry[] = [];
  let searchOnly = 0;
  for (const s of skills) {
    const presence = access?.get(s.name) ?? LISTED;
    if (presence.catalog === 'searchable') searchOnly++;
    if (presence.catalog !== 'listed') continue;
    pool.push({ name: s.name, description: catalogDescription(s), pinned: presence.pinned, source: s });
  }
  const byName = new Map(pool.map((e) => [e.name, e]));
  const memo: Memo = { access, pool, byName, searchOnly, results: new Map() };
  memos.set(skills, memo);
  return memo;
}

function remember(memo: Memo, key: string, value: BudgetedCatalog | typeof RANKED): void {
  if (memo.results.size >= MEMO_RESULTS_LIMIT) memo.results.clear();
  memo.results.set(key, value);
}

/** Builds the catalog block for `skills` within `options.budgetTokens` (see the module comment). */
export function buildBudgetedCatalog(skills: ReadonlyArray<CatalogSkill>, options: BudgetOptions): BudgetedCatalog {
  const { budgetTokens } = options;
  const memo = memoOf(skills, options.access);
  const budgetKey = String(budgetTokens);
  const known = memo.results.get(budgetKey);
  if (known !== undefined && known !== RANKED) return known;
  if (known === undefined) {
    const whole = everything(memo, budgetTokens);
    remember(memo, budgetKey, whole ?? RANKED);
    if (whole) return whole;
  }
  const relevance = relevanceOf(memo.pool, options);
  const usage = options.usage;
  const key = `${budgetKey}\0${[...relevance].join(';')}\0${usage ? [...usage].filter(([, n]) => n > 0).join(';') : ''}`;
  const ranked = memo.results.get(key);
  if (ranked !== undefined && ranked !== RANKED) return ranked;
  const result = leaveOut(memo, budgetTokens, rank(memo, relevance, usage, skills));
  remember(memo, key, result);
  return result;
}

/** Steps 1 and 2: every listed skill, whole or shortened; null when some must be left out. */
function everything(memo: Memo, budgetTokens: number): BudgetedCatalog | null {
  const { pool, searchOnly } = memo;
  // 1. Everything, whole: exactly `renderCatalog` when nothing is searchable only.
  const allRoom = budgetTokens - wrapperTokens(searchOnly);
  if (totalAt(pool, Number.POSITIVE_INFINITY, allRoom) <= allRoom) {
    const result = render(pool, Number.POSITIVE_INFINITY, searchOnly);
    const catalog = searchOnly === 0 ? renderCatalog(pool) : result.catalog;
    return { ...result, catalog, omitted: searchOnly, tokens: countTokens(catalog), budgetTokens };
  }

  // 2. Everything, shortened.
  const cap = fitCap(pool, allRoom);
  if (cap !== null) {
    const result = render(pool, cap, searchOnly);
    const tokens = countTokens(result.catalog);
    if (tokens <= budgetTokens) return { ...result, omitted: searchOnly, tokens, budgetTokens };
  }
  return null;
}

/** Step 3: the best-ranked that fit at the shortest descriptions, then lengthened as far as room allows. */
function leaveOut(memo: Memo, budgetTokens: number, ranked: Iterable<Entry>): BudgetedCatalog {
  const { pool, searchOnly } = memo;
  // The note's number has at most as many digits as the whole pool's count: reserve room for that.
  const room = budgetTokens - wrapperTokens(pool.length + searchOnly);
  const chosen: Entry[] = [];
  let used = 0;
  for (const e of ranked) {
    const cost = costAt(e, MIN_DESCRIPTION_CHARS);
    if (!e.pinned && used + cost > room) break;
    chosen.push(e);
    used += cost;
  }
  // Exact check; the sum of entries is an upper bound, so this loop almost never runs more than once.
  for (;;) {
    const notListed = pool.length - chosen.length + searchOnly;
    const chosenCap = fitCap(chosen, room) ?? MIN_DESCRIPTION_CHARS;
    const result = render(chosen, chosenCap, notListed);
    const tokens = countTokens(result.catalog);
    const last = chosen.at(-1);
    if (tokens <= budgetTokens || !last || last.pinned) return { ...result, omitted: notListed, tokens, budgetTokens };
    chosen.pop();
  }
}

/** Relevance of each skill to the conversation (score > 0 only), best first: one matcher call per build. */
function relevanceOf(pool: readonly Entry[], options: BudgetOptions): Map<string, number> {
  const relevance = new Map<string, number>();
  const text = options.relevanceText?.slice(-MAX_RELEVANCE_CHARS) ?? '';
  if (text.trim()) {
    const given = options.matcher;
    const matcher = typeof given === 'function' ? given() : (given ?? createMatcher(pool));
    for (const { name, score } of matcher.rank(text, 500)) if (score > 0) relevance.set(name, score);
  }
  return relevance;
}

// Names in hash order, per skill list (the registry hands over the same array until the next scan).
const hashOrders = new WeakMap<object, string[]>();

function namesByHash(skills: ReadonlyArray<CatalogSkill>): string[] {
  let order = hashOrders.get(skills);
  if (!order) {
    order = skills
      .map((s) => ({ name: s.name, hash: hashName(s.name) }))
      .sort((a, b) => a.hash - b.hash || compareNames(a.name, b.name))
      .map((s) => s.name);
    hashOrders.set(skills, order);
  }
  return order;
}

/**
 * Best first: pinned, relevance to the conversation, use, then a name hash. Lazy: only the skills with a signal are
 * sorted; the rest follow in (cached) hash order, and the caller stops as soon as the budget is full.
 */
function* rank(
  { pool, byName }: Memo,
  relevance: ReadonlyMap<string, number>,
  usage: ReadonlyMap<string, number> | undefined,
  skills: ReadonlyArray<CatalogSkill>,
): Generator<Entry> {
  const signaled = new Set<Entry>();
  const add = (name: string) => {
    const e = byName.get(name);
    if (e) signaled.add(e);
  };
  for (const e of pool) if (e.pinned) signaled.add(e);
  for (const name of relevance.keys()) add(name);
  if (usage) for (const [name, count] of usage) if (count > 0) add(name);
  const keyOf = (e: Entry) => ({ e, relevance: relevance.get(e.name) ?? 0, usage: usage?.get(e.name) ?? 0 });
  const keyed = [...signaled].map(keyOf);
  keyed.sort(
    (a, b) =>
      Number(b.e.pinned) - Number(a.e.pinned) ||
      b.relevance - a.relevance ||
      b.usage - a.usage ||
      hashName(a.e.name) - hashName(b.e.name) ||
      compareNames(a.e.name, b.e.name),
  );
  for (const { e } of keyed) yield e;
  for (const name of namesByHash(skills)) {
    const e = byName.get(name);
    if (e && !signaled.has(e)) yield e;
  }
}
