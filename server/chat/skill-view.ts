/**
 * What a turn may do with the installed skills: which exist, which the model may use (not denied by permission, not
 * `off`), and the catalog block under the token budget. Built once per turn from the registry's scan.
 *
 * The catalog is kept per chat while the skill set, modes and budget stay the same, so the system prompt is stable
 * across the turns of a chat (provider prompt caching). When skills must be left out, relevance is taken from the
 * chat's first message for the same reason; later needs are served by `skills_search`.
 */
import type { AppConfig } from '../config';
import type { PermissionPolicy } from '../permissions/policy';
import { type BudgetedCatalog, buildBudgetedCatalog, catalogBudget } from '../skills/budget';
import { createMatcher, type Matcher } from '../skills/match';
import { modeIn, modelMayActivate, type SkillMode } from '../skills/modes';
import type { Skill } from '../skills/types';

export interface SkillSource {
  /** The registry's current skills (the same array until the next scan: caches key on it). */
  skills: readonly Skill[];
  /** Modes from config and /admin (registry.modes()); missing names are `auto`. */
  modes?: ReadonlyMap<string, SkillMode>;
  /** The registry's matcher over `skills`. */
  matcher?: Matcher;
  /** Activations per skill across chats: used skills stay listed first when some must be left out. */
  usage?: ReadonlyMap<string, number> | (() => ReadonlyMap<string, number>);
}

export interface SkillView {
  all: ReadonlyMap<string, Skill>;
  /** Skills the tools may touch: not denied by permission and not `off`. */
  usable: ReadonlyMap<string, Skill>;
  modeOf(name: string): SkillMode;
  /** Effective modes: a denied skill is `off`. */
  modes: ReadonlyMap<string, SkillMode>;
  /** Null when no skill can be offered to the model: then no catalog and no skill tools. */
  catalog: BudgetedCatalog | null;
  /** Names the activation tool may enumerate; null when the model can reach unlisted skills (free string). */
  activationEnum: [string, ...string[]] | null;
  matcher(): Matcher;
}

type CatalogCacheEntry = { modes: ReadonlyMap<string, SkillMode>; budget: number; catalog: BudgetedCatalog };
const catalogCache = new WeakMap<readonly Skill[], Map<string, CatalogCacheEntry>>();

export function buildSkillView(input: {
  source: SkillSource;
  policy: PermissionPolicy;
  config: Pick<AppConfig, 'catalog'>;
  contextWindow?: number;
  chatId: string;
  /** The chat's first user message: relevance for the catalog when skills must be left out. */
  relevanceText: string;
}): SkillView {
  const { source, policy } = input;
  const all = new Map(source.skills.map((s) => [s.name, s]));
  // A denied skill is `off` for the model: never listed, never searchable, never activated.
  const modes = new Map<string, SkillMode>();
  for (const skill of source.skills) {
    modes.set(skill.name, policy.resolve(skill).permission === 'deny' ? 'off' : modeIn(source.modes, skill.name));
  }
  const usable = new Map([...all].filter(([name]) => modes.get(name) !== 'off'));
  let matcher = source.matcher;
  const getMatcher = () => {
    matcher ??= createMatcher(source.skills);
    return matcher;
  };

  let catalog: BudgetedCatalog | null = null;
  if ([...usable.keys()].some((name) => modelMayActivate(modes.get(name)!))) {
    const budget = catalogBudget(input.contextWindow, input.config);
    let perChat = catalogCache.get(source.skills);
    if (!perChat) {
      perChat = new Map();
      catalogCache.set(source.skills, perChat);
    }
    const cached = perChat.get(input.chatId);
    if (cached && cached.budget === budget && sameModes(cached.modes, modes)) {
      catalog = cached.catalog;
    } else {
      catalog = buildBudgetedCatalog(source.skills, {
        budgetTokens: budget,
        relevanceText: input.relevanceText,
        // Only read when the chat's catalog is built, not on every turn.
        usage: typeof source.usage === 'function' ? source.usage() : source.usage,
        modes,
        matcher: getMatcher,
      });
      perChat.set(input.chatId, { modes, budget, catalog });
    }
  }

  const enumerable = catalog && catalog.omitted === 0 ? catalog.listed.filter((n) => usable.has(n)) : [];
  return {
    all,
    usable,
    modeOf: (name) => modes.get(name) ?? 'auto',
    modes,
    catalog,
    activationEnum: enumerable.length > 0 ? (enumerable as [string, ...string[]]) : null,
    matcher: getMatcher,
  };
}

function sameModes(a: ReadonlyMap<string, SkillMode>, b: ReadonlyMap<string, SkillMode>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, mode] of a) if (b.get(name) !== mode) return false;
  return true;
}
