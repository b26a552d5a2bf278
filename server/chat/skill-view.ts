/**
 * What a turn may do with the installed skills: which exist, which the tools may touch (their access record says
 * `usable`), and the catalog block under the token budget. Built once per turn from the registry's scan.
 *
 * The catalog is kept per chat while the skill set, their catalog presence and the budget stay the same, so the system prompt is stable
 * across the turns of a chat (provider prompt caching). When skills must be left out, relevance is taken from the
 * chat's first message for the same reason; later needs are served by `skills_search`.
 */
import type { AccessMap } from '../access/resolver';
import type { AppConfig } from '../config';
import { KeptMap } from '../kept-map';
import { type BudgetedCatalog, buildBudgetedCatalog, catalogBudget } from '../skills/catalog/budget';
import { createMatcher, type Matcher } from '../skills/catalog/match';
import type { Skill } from '../skills/types';

export interface SkillSource {
  /** The registry's current skills (the same array until the next scan: caches key on it). */
  skills: readonly Skill[];
  /** Each skill's access record (server/access/), resolved for this turn. */
  access: AccessMap;
  /** The registry's matcher over `skills`. */
  matcher?: Matcher;
  /** Activations per skill across chats: used skills stay listed first when some must be left out. */
  usage?: ReadonlyMap<string, number> | (() => ReadonlyMap<string, number> | Promise<ReadonlyMap<string, number>>);
}

export interface SkillView {
  all: ReadonlyMap<string, Skill>;
  /** Skills the tools may touch: their access record says `usable` (not denied, not off). */
  usable: ReadonlyMap<string, Skill>;
  access: AccessMap;
  /** Null when no skill can be offered to the model: then no catalog and no skill tools. */
  catalog: BudgetedCatalog | null;
  /** Names the activation tool may enumerate; null when the model can reach unlisted skills (free string). */
  activationEnum: [string, ...string[]] | null;
  matcher(): Matcher;
}

type CatalogCacheEntry = { access: AccessMap; presence: string; budget: number; catalog: BudgetedCatalog };
/**
 * Catalogs by chat, per skill array. Bounded: a server whose skills do not change keeps its array for weeks, and a
 * catalog is as long as its budget (16 KB at the default 4,000 tokens). A chat whose catalog was dropped (as many
 * other chats took turns since its last) builds it again: the same skills, though the order of use may differ.
 */
const catalogCache = new WeakMap<readonly Skill[], KeptMap<string, CatalogCacheEntry>>();
export const MAX_CHAT_CATALOGS = 1000;

/**
 * What a turn derives from the skill list and the access records alone, kept while both are the same objects (the
 * registry's array until the next scan, the resolver's records until an override; one set of records per set of
 * switched-off skills, so people with different switches each keep theirs): with 10,000 skills, building it was most
 * of a turn's own work.
 */
interface Derived {
  all: ReadonlyMap<string, Skill>;
  usable: ReadonlyMap<string, Skill>;
  anyModelActivatable: boolean;
  presence: string;
}
const derivedCache = new WeakMap<readonly Skill[], WeakMap<AccessMap, Derived>>();

function derive(skills: readonly Skill[], access: AccessMap): Derived {
  let byAccess = derivedCache.get(skills);
  if (!byAccess) {
    byAccess = new WeakMap();
    derivedCache.set(skills, byAccess);
  }
  const known = byAccess.get(access);
  if (known) return known;
  const all = new Map(skills.map((s) => [s.name, s]));
  const usableEntries = [...all].filter(([name]) => access.get(name)?.usable === true);
  // Mostly every skill is usable: then one map serves as both (a map of 10,000 skills is not small).
  const usable = usableEntries.length === all.size ? all : new Map(usableEntries);
  const anyModelActivatable = [...usable.keys()].some((name) => access.get(name)?.modelMayActivate);
  const derived = { all, usable, anyModelActivatable, presence: presenceKey(skills, access) };
  byAccess.set(access, derived);
  return derived;
}

export async function buildSkillView(input: {
  source: SkillSource;
  config: Pick<AppConfig, 'catalog'>;
  contextWindow?: number;
  chatId: string;
  /** The chat's first user message: relevance for the catalog when skills must be left out. */
  relevanceText: string;
}): Promise<SkillView> {
  const { source } = input;
  const { access } = source;
  const { all, usable, anyModelActivatable, presence } = derive(source.skills, access);
  let matcher = source.matcher;
  const getMatcher = () => {
    matcher ??= createMatcher(source.skills);
    return matcher;
  };

  let catalog: BudgetedCatalog | null = null;
  if (anyModelActivatable) {
    const budget = catalogBudget(input.contextWindow, input.config);
    let perChat = catalogCache.get(source.skills);
    if (!perChat) {
      perChat = new KeptMap(MAX_CHAT_CATALOGS);
      catalogCache.set(source.skills, perChat);
    }
    const cached = perChat.get(input.chatId);
    // The resolver hands out new records after an override: the chat keeps its catalog unless what it reads changed.
    if (cached && cached.budget === budget && cached.presence === presence) {
      catalog = cached.catalog;
    } else {
      catalog = buildBudgetedCatalog(source.skills, {
        budgetTokens: budget,
        relevanceText: input.relevanceText,
        // Only read when the chat's catalog is built, not on every turn.
        usage: typeof source.usage === 'function' ? await source.usage() : source.usage,
        access,
        matcher: getMatcher,
      });
      perChat.set(input.chatId, { access, presence, budget, catalog });
    }
  }

  const enumerable = catalog && catalog.omitted === 0 ? catalog.listed.filter((n) => usable.has(n)) : [];
  return {
    all,
    usable,
    access,
    catalog,
    activationEnum: enumerable.length > 0 ? (enumerable as [string, ...string[]]) : null,
    matcher: getMatcher,
  };
}

/** What the catalog depends on besides the skills: each skill's presence. */
function presenceKey(skills: readonly Skill[], access: AccessMap): string {
  return skills.map((s) => `${access.get(s.name)?.catalog ?? 'hidden'}${access.get(s.name)?.pinned ? '!' : ''}`).join();
}
