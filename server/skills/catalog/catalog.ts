/**
 * The catalog the model sees up front: every skill's name and description and nothing else (paths stay on the
 * server; the activation tool takes a name). Compact and deterministic so the same skill set always renders the
 * same bytes: prompt caches and golden tests depend on that.
 */
// A module-level import, so `countTokens` stays synchronous: the o200k table is loaded once per process, and it is
// large, so modules that only need the catalog order import `compareNames` from ../names, not from here.
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { catalogBlock } from '../../prompt/catalog-block';
import { stripHiddenText } from '../load/hidden-text';
import { compareNames } from '../name-order';

export interface CatalogEntry {
  name: string;
  description: string;
}

/**
 * `{"available_skills":[{"name":"...","description":"..."}]}`, sorted by name (code-point order). Hidden characters
 * are taken out here as well as in `catalogDescription`: this is the last step before the prompt for every caller.
 */
export function renderCatalog(skills: ReadonlyArray<CatalogEntry>): string {
  const entries = skills
    .map(({ name, description }) => ({ name: stripHiddenText(name), description: stripHiddenText(description) }))
    .sort((a, b) => compareNames(a.name, b.name) || compareNames(a.description, b.description));
  return catalogBlock(
    entries.map((entry) => JSON.stringify(entry)),
    0,
  );
}

/** Tokens in the o200k encoding (GPT-4o and later): close enough for budgeting other providers too. */
export function countTokens(text: string): number {
  return countO200k(text);
}
