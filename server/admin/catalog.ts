/**
 * The catalog section of /admin: the block a new chat's model receives, built by the same function a turn uses
 * (`buildSkillView`), so skills the access records hide are left out here exactly as for the model.
 */
import type { AccessMap } from '../access/resolver';
import { buildSkillView } from '../chat/skill-view';
import type { AppConfig } from '../config';
import { type BudgetedCatalog, catalogBudget } from '../skills/catalog/budget';
import type { Matcher } from '../skills/catalog/match';
import type { Skill } from '../skills/types';

/** The catalog block the model receives, under the budget and each skill's catalog presence (budget.ts). */
export interface AdminCatalog {
  text: string;
  tokens: number;
  budgetTokens: number;
  /** Skills in the block. */
  listed: number;
  /** Skills left out of the block that `skills_search` finds (over budget, or in `search` mode). */
  notListed: number;
  /** Loaded skills the model is not told about at all (`manual` and `off`). */
  hidden: number;
  /** Listed skills whose description was shortened to fit. */
  shortened: number;
}

/** The catalog cache key of the admin page's preview (no chat has this id: chat ids are checked by a pattern). */
const ADMIN_PREVIEW = '#admin-preview';

/**
 * The catalog a new chat's first turn gets: the model's budget and the same use counts, but no first message yet
 * (when skills must be left out, each chat's first message decides which).
 */
export async function previewCatalog(input: {
  skills: readonly Skill[];
  access: AccessMap;
  matcher: Matcher;
  usage: ReadonlyMap<string, number>;
  config: Pick<AppConfig, 'catalog'>;
  contextWindow?: number;
}): Promise<BudgetedCatalog> {
  const view = await buildSkillView({
    source: { skills: input.skills, access: input.access, matcher: input.matcher, usage: input.usage },
    config: input.config,
    contextWindow: input.contextWindow,
    chatId: ADMIN_PREVIEW,
    relevanceText: '',
  });
  return (
    view.catalog ?? {
      catalog: '(none: no skill can be offered to the model, so its instructions carry no catalog and no skill tools)',
      listed: [],
      omitted: 0,
      tokens: 0,
      shortened: 0,
      budgetTokens: catalogBudget(input.contextWindow, input.config),
    }
  );
}

export function summarizeCatalog(catalog: BudgetedCatalog, loaded: number): AdminCatalog {
  return {
    text: catalog.catalog,
    tokens: catalog.tokens,
    budgetTokens: catalog.budgetTokens,
    listed: catalog.listed.length,
    notListed: catalog.omitted,
    hidden: loaded - catalog.listed.length - catalog.omitted,
    shortened: catalog.shortened,
  };
}
