/**
 * Trigger queries a skill carries: `evals/trigger-queries.json` in its folder, an array of
 * `{ "query": string, "should_trigger": boolean, "split"?: "train" | "validation" }` (the Agent Skills guide's shape).
 * A bad file is a list of problems, one per entry, never an exception: it must not break loading or validating the
 * skill, which never reads it.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { readSkillResource } from '../skills/resources/resources';
import type { Skill } from '../skills/types';

export const QUERIES_FILE = 'evals/trigger-queries.json';
/** Enough for a train and a validation set; more is a benchmark, not a skill's own file. */
export const MAX_FILE_QUERIES = 50;
export const MAX_QUERY_CHARS = 2000;
const MAX_FILE_BYTES = 256 * 1024;

export type Split = 'train' | 'validation';

export interface TriggerQuery {
  text: string;
  shouldTrigger: boolean;
  /** Given in the file; else `splitOf` decides. */
  split?: Split;
}

export interface QueriesFile {
  /** False when the skill has no such file (not a problem). */
  present: boolean;
  queries: TriggerQuery[];
  /** One sentence each, naming the entry (`entry 3: ...`); the valid entries are still used. */
  problems: string[];
}

const entrySchema = z
  .object({
    query: z
      .string()
      .trim()
      .min(1, 'query is empty')
      .max(MAX_QUERY_CHARS, `query is over ${MAX_QUERY_CHARS} characters`),
    should_trigger: z.boolean({ error: 'should_trigger must be true or false' }),
    split: z.enum(['train', 'validation'], { error: 'split must be "train" or "validation"' }).optional(),
  })
  .strict();

function entryProblem(index: number, error: z.ZodError): string {
  const issue = error.issues[0]!;
  const field = issue.path[0];
  if (issue.code === 'unrecognized_keys')
    return `entry ${index + 1}: unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  if (issue.code === 'invalid_type' && field === undefined) {
    return `entry ${index + 1}: must be an object { "query": "...", "should_trigger": true }`;
  }
  if (issue.code === 'invalid_type' && field === 'query') return `entry ${index + 1}: query must be a string`;
  return `entry ${index + 1}: ${issue.message}`;
}

/** The file's text into queries and problems (pure). */
export function parseQueriesFile(text: string): Omit<QueriesFile, 'present'> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { queries: [], problems: [`${QUERIES_FILE} is not JSON: ${(error as Error).message}`] };
  }
  if (!Array.isArray(data)) {
    return { queries: [], problems: [`${QUERIES_FILE} must be an array of { "query", "should_trigger" } objects`] };
  }
  const queries: TriggerQuery[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  data.forEach((entry, i) => {
    const parsed = entrySchema.safeParse(entry);
    if (!parsed.success) {
      problems.push(entryProblem(i, parsed.error));
      return;
    }
    const { query, should_trigger, split } = parsed.data;
    if (seen.has(query)) {
      problems.push(`entry ${i + 1}: the same query as an earlier entry`);
      return;
    }
    seen.add(query);
    queries.push({ text: query, shouldTrigger: should_trigger, ...(split ? { split } : {}) });
  });
  if (queries.length > MAX_FILE_QUERIES) {
    problems.push(`${QUERIES_FILE} has ${queries.length} queries; the first ${MAX_FILE_QUERIES} are used`);
    queries.length = MAX_FILE_QUERIES;
  }
  return { queries, problems };
}

/** The skill's carried queries, through the one confined reader. */
export async function readQueriesFile(skill: Pick<Skill, 'name' | 'dir' | 'origin'>): Promise<QueriesFile> {
  const read = await readSkillResource(skill, QUERIES_FILE, { maxBytes: MAX_FILE_BYTES });
  if (!read.ok) {
    if (read.code === 'not-found') return { present: false, queries: [], problems: [] };
    return { present: true, queries: [], problems: [`${QUERIES_FILE}: ${read.error}`] };
  }
  if (read.binary || read.truncated) {
    return {
      present: true,
      queries: [],
      problems: [`${QUERIES_FILE} must be a JSON text under ${MAX_FILE_BYTES} bytes`],
    };
  }
  return { present: true, ...parseQueriesFile(read.content) };
}

/**
 * Train or validation: the file's own split, else 60/40 by a hash of the query, so the same query always lands on
 * the same side whatever else the file holds.
 */
export function splitOf(query: Pick<TriggerQuery, 'text' | 'split'>): Split {
  if (query.split) return query.split;
  const bucket = createHash('sha256').update(query.text).digest().readUInt32BE(0) % 100;
  return bucket < 60 ? 'train' : 'validation';
}
