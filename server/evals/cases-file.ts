/**
 * A skill's output eval cases: `evals/evals.json` in its folder, Anthropic skill-creator's shape with checks added
 * (docs in the file's own terms: `skill_name`, `evals[]` with `id`, `prompt`, `files`, `expected_output`, `checks`).
 * A bad entry is a problem naming the entry; the good ones still run, and a bad file never breaks the skill.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

export const CASES_FILE = 'evals/evals.json';
/** Input files a case names live here, relative to the skill's folder. */
export const CASE_FILES_DIR = 'evals/files';
export const MAX_CASES = 50;
const MAX_FILE_BYTES = 256 * 1024;

export interface EvalChecks {
  filesExist: string[];
  fileContains: Array<{ path: string; text: string }>;
  /** Must exit 0 in the run's workspace, in the sandbox. */
  command?: string;
  /** Graded PASS/FAIL by the configured model. */
  rubric?: string;
}

export interface EvalCase {
  id: string;
  prompt: string;
  /** Relative to the skill's `evals/files/`; copied into the scratch chat's workspace under their base names. */
  files: string[];
  expectedOutput?: string;
  checks: EvalChecks;
}

export interface CasesFile {
  skillName: string | null;
  cases: EvalCase[];
  /** One sentence per problem, naming the entry (`evals[2] "x": prompt is required`). */
  problems: string[];
}

/** A path a case names: relative, no `..`, no hidden segment, no backslash. */
const relPath = z
  .string()
  .min(1)
  .max(300)
  .refine(
    (p) => !p.startsWith('/') && !p.includes('\\') && p.split('/').every((s) => s !== '' && s !== '..' && s !== '.'),
    'must be a relative path inside the folder (no "..", no leading "/")',
  );

const checksSchema = z
  .object({
    files_exist: z.array(relPath).max(20).optional(),
    file_contains: z
      .array(z.object({ path: relPath, text: z.string().min(1).max(2000) }).strict())
      .max(20)
      .optional(),
    command: z.string().min(1).max(4000).optional(),
    rubric: z.string().min(1).max(4000).optional(),
  })
  .strict();

const caseSchema = z
  .object({
    id: z.union([z.string().min(1).max(100), z.number().int()]),
    prompt: z.string().min(1).max(20_000),
    files: z.array(relPath).max(20).optional(),
    expected_output: z.string().max(4000).optional(),
    checks: checksSchema.optional(),
  })
  .strict();

const fileSchema = z.object({ skill_name: z.string().optional(), evals: z.array(z.unknown()) }).passthrough();

function issueText(error: z.ZodError): string {
  return error.issues
    .map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message))
    .slice(0, 3)
    .join('; ');
}

/** Parses the file's text; never throws. */
export function parseCasesFile(text: string): CasesFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { skillName: null, cases: [], problems: [`${CASES_FILE} is not JSON: ${(error as Error).message}`] };
  }
  const top = fileSchema.safeParse(data);
  if (!top.success) {
    return {
      skillName: null,
      cases: [],
      problems: [`${CASES_FILE} must be { "skill_name": "…", "evals": [ … ] }: ${issueText(top.error)}`],
    };
  }
  const problems: string[] = [];
  const cases: EvalCase[] = [];
  const seen = new Set<string>();
  for (const [index, entry] of top.data.evals.slice(0, MAX_CASES).entries()) {
    const read = readEntry(entry, index, seen);
    if (typeof read === 'string') problems.push(read);
    else cases.push(read);
  }
  if (top.data.evals.length > MAX_CASES) problems.push(`only the first ${MAX_CASES} evals are read`);
  return { skillName: top.data.skill_name ?? null, cases, problems };
}

/** One entry as a case, or the sentence saying what is wrong with it. */
function readEntry(entry: unknown, index: number, seen: Set<string>): EvalCase | string {
  const rawId = (entry as { id?: unknown } | null)?.id;
  const label = `evals[${index}]${typeof rawId === 'string' || typeof rawId === 'number' ? ` "${rawId}"` : ''}`;
  const parsed = caseSchema.safeParse(entry);
  if (!parsed.success) return `${label}: ${issueText(parsed.error)}`;
  const c = parsed.data;
  const id = String(c.id);
  if (seen.has(id)) return `${label}: the id "${id}" is used twice`;
  seen.add(id);
  const checks = c.checks ?? {};
  const hasCheck =
    (checks.files_exist?.length ?? 0) + (checks.file_contains?.length ?? 0) > 0 || !!checks.command || !!checks.rubric;
  if (!hasCheck) return `${label}: give at least one check (files_exist, file_contains, command, rubric)`;
  return {
    id,
    prompt: c.prompt,
    files: c.files ?? [],
    ...(c.expected_output ? { expectedOutput: c.expected_output } : {}),
    checks: {
      filesExist: checks.files_exist ?? [],
      fileContains: checks.file_contains ?? [],
      ...(checks.command ? { command: checks.command } : {}),
      ...(checks.rubric ? { rubric: checks.rubric } : {}),
    },
  };
}

/** Reads `evals/evals.json` of a skill folder; null when the skill has none. */
export async function readCasesFile(skillDir: string): Promise<CasesFile | null> {
  const file = path.join(skillDir, CASES_FILE);
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { skillName: null, cases: [], problems: [`${CASES_FILE} could not be read`] };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { skillName: null, cases: [], problems: [`${CASES_FILE} is not a file`] };
    if (stat.size > MAX_FILE_BYTES) {
      return { skillName: null, cases: [], problems: [`${CASES_FILE} is over ${MAX_FILE_BYTES} bytes`] };
    }
    return parseCasesFile(await handle.readFile('utf8'));
  } finally {
    await handle.close();
  }
}
