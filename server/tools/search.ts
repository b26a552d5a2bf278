/** `skills_search`: finds skills the catalog left out. Offered only when skills were left out. */
import { z } from 'zod';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, type SkillSearchHit, searchSkills } from '../skills/catalog/search';
import type { SkillToolContext } from './context';
import { defineTool } from './define';
import { TOOL_SEARCH } from './names';

export interface SearchInput {
  query: string;
  limit?: number;
}

const searchOutput = z.object({
  query: z.string(),
  results: z.array(z.object({ name: z.string(), description: z.string(), score: z.number() })),
});

export type SearchOutput = z.infer<typeof searchOutput>;

export function searchCatalog(ctx: SkillToolContext, query: string, limit: number): SkillSearchHit[] {
  if (!ctx.search) return [];
  return searchSkills(ctx.search.matcher(), ctx.skills, query, limit, ctx.access);
}

export const searchTool = defineTool({
  name: TOOL_SEARCH,
  descriptionFile: new URL('./search.txt', import.meta.url),
  input: () =>
    z.object({
      query: z.string().min(1).max(1000).describe('What the skill should do'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(MAX_SEARCH_LIMIT)
        .optional()
        .describe(`How many results (default ${DEFAULT_SEARCH_LIMIT})`),
    }),
  output: searchOutput,
  offered: (ctx) => ctx.search != null,
  execute: async (ctx, { query, limit }: SearchInput): Promise<SearchOutput> => ({
    query,
    results: searchCatalog(ctx, query, limit ?? DEFAULT_SEARCH_LIMIT),
  }),
});
