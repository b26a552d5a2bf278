/**
 * Catalog figures: o200k tokens per skill for our JSON block against skills-ref's `<available_skills>` XML, and
 * the catalog and instructions the model gets with 10 / 1,000 / 10,000 skills under the default budgets.
 */
import { buildInstructions } from '../server/prompt/instructions';
import { buildBudgetedCatalog, catalogBudget } from '../server/skills/catalog/budget';
import { countTokens, renderCatalog } from '../server/skills/catalog/catalog';
import { createMatcher } from '../server/skills/catalog/match';
import { toPrompt } from '../server/skills/load/skills-ref';
import type { Skill } from '../server/skills/types';

export interface TokensPerSkill {
  sample: number;
  jsonPerSkill: number;
  xmlPerSkill: number;
  /** XML / JSON. */
  ratio: number;
}

export interface CatalogFigures {
  skills: number;
  budgetName: string;
  budgetTokens: number;
  catalogTokens: number;
  instructionsTokens: number;
  listed: number;
  omitted: number;
  shortened: number;
  /** Tokens of the whole catalog without a budget. */
  unbudgetedTokens: number;
  /** First build (token counts not cached yet) and a warm build with relevance text, in ms. */
  firstMs: number;
  warmMs: number;
  withinBudget: boolean;
  /** Names in the warm catalog (not printed; the chat bench uses them). */
  listedNames: string[];
}

export function tokensPerSkill(skills: readonly Skill[], sample = 200): TokensPerSkill {
  const step = Math.max(1, Math.floor(skills.length / sample));
  const picked = skills.filter((_, i) => i % step === 0).slice(0, sample);
  const json = countTokens(renderCatalog(picked)) - countTokens(renderCatalog([]));
  const xml = countTokens(toPrompt(picked.map((s) => s.dir))) - countTokens(toPrompt([]));
  return {
    sample: picked.length,
    jsonPerSkill: json / picked.length,
    xmlPerSkill: xml / picked.length,
    ratio: xml / json,
  };
}

const BUDGETS: Array<{ name: string; contextWindow?: number }> = [
  { name: 'default (window unknown: offline, local models)' },
  { name: 'gpt-4o (128k window, 2%)', contextWindow: 128_000 },
  { name: 'gpt-4.1 (1M window, 2%)', contextWindow: 1_047_576 },
];

export function benchCatalog(all: readonly Skill[], counts: readonly number[]): CatalogFigures[] {
  const figures: CatalogFigures[] = [];
  for (const count of counts) {
    const skills = all.slice(0, count);
    const matcher = createMatcher(skills);
    const unbudgetedTokens = countTokens(renderCatalog(skills));
    for (const budget of BUDGETS) {
      const budgetTokens = catalogBudget(budget.contextWindow, {});
      let t = performance.now();
      const first = buildBudgetedCatalog(skills, { budgetTokens });
      const firstMs = performance.now() - t;
      t = performance.now();
      const warm = buildBudgetedCatalog(skills, {
        budgetTokens,
        relevanceText: 'Please turn these invoice tables into a CSV report',
        matcher,
      });
      const warmMs = performance.now() - t;
      const instructions = buildInstructions({ catalog: warm.catalog, activatedNames: [] });
      figures.push({
        skills: count,
        budgetName: budget.name,
        budgetTokens,
        catalogTokens: warm.tokens,
        instructionsTokens: countTokens(instructions),
        listed: warm.listed.length,
        omitted: warm.omitted,
        shortened: warm.shortened,
        unbudgetedTokens,
        firstMs,
        warmMs,
        withinBudget: first.tokens <= budgetTokens && warm.tokens <= budgetTokens,
        listedNames: warm.listed,
      });
    }
  }
  return figures;
}
