/**
 * The catalog as the model reads it: `{"available_skills":[...]}`, and when skills are left out for room, how many
 * and the tool that finds them. The catalog room decides what is listed (server/skills/catalog/); this is its text.
 */
import { TOOL_SEARCH } from '../tools/names';
import { CATALOG_KEY } from './keys';

function notListedNote(notListed: number): string {
  const what = notListed === 1 ? '1 more skill is' : `${notListed} more skills are`;
  return `${what} not listed here. Call ${TOOL_SEARCH} with a few words about the task to find them.`;
}

/** The block around entries already rendered as JSON objects (the budget counts each entry's tokens once). */
export function catalogBlock(entries: readonly string[], notListed: number): string {
  const list = `{${JSON.stringify(CATALOG_KEY)}:[${entries.join(',')}]`;
  return notListed > 0
    ? `${list},"not_listed":${notListed},"note":${JSON.stringify(notListedNote(notListed))}}`
    : `${list}}`;
}
