/**
 * The part of an access record the catalog and `skills_search` read. A type-only module, so the skills engine
 * (budget.ts, search.ts) depends on the record's shape, not on the resolver.
 */
import type { SkillAccess } from './access';

export type CatalogPresenceOf = ReadonlyMap<string, Pick<SkillAccess, 'catalog' | 'pinned'>>;
