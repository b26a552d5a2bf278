/**
 * A rubric graded by the configured model: one prompt with the case, the answer and the files made, and a reply
 * read as PASS or FAIL with a reason. Models add preambles and markdown, so the reply is read leniently; a reply
 * with no verdict (or both) is no grade, which fails the check with that reason.
 */
import { generateText, type LanguageModel } from 'ai';

export interface Grade {
  verdict: 'pass' | 'fail' | null;
  reason: string;
}

export interface GradeInput {
  rubric: string;
  prompt: string;
  expectedOutput?: string;
  answer: string;
  /** The files in the workspace after the run (names and sizes). */
  files: string[];
}

const MAX_ANSWER_CHARS = 12_000;

export function rubricPrompt(input: GradeInput): string {
  const answer =
    input.answer.length > MAX_ANSWER_CHARS ? `${input.answer.slice(0, MAX_ANSWER_CHARS)}\n[answer cut]` : input.answer;
  return [
    'You grade one answer of an assistant against a rubric. Judge only what is shown.',
    '',
    `<task>\n${input.prompt}\n</task>`,
    input.expectedOutput ? `<expected_output>\n${input.expectedOutput}\n</expected_output>` : '',
    `<answer>\n${answer}\n</answer>`,
    `<files_made>\n${input.files.join('\n') || '(none)'}\n</files_made>`,
    `<rubric>\n${input.rubric}\n</rubric>`,
    '',
    'Reply with exactly two lines:',
    'VERDICT: PASS or VERDICT: FAIL',
    'REASON: one sentence',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

const VERDICT_LINE = /verdict\s*[:=\-–]?\s*[*_`"]*\s*(pass|fail)\b/gi;
const LEADING_WORD = /^[\s>*_#`"-]*(PASS|FAIL)\b[\s*_`".:,\-–]*(.*)$/;
const REASON_LINE = /reason\s*[:=\-–]\s*[*_`"]*\s*(.+)$/im;

/** Reads a grader's reply; never throws. */
export function parseGrade(reply: string): Grade {
  const text = reply.trim();
  const reasonMatch = REASON_LINE.exec(text);
  const reason = (line: string) =>
    (reasonMatch?.[1] ?? line)
      .trim()
      .replace(/[*_`]+$/, '')
      .slice(0, 300);
  const verdicts = [...text.matchAll(VERDICT_LINE)];
  const last = verdicts.at(-1);
  if (last) return { verdict: last[1]!.toLowerCase() as 'pass' | 'fail', reason: reason('') };
  for (const line of text.split('\n')) {
    const m = LEADING_WORD.exec(line);
    if (m) return { verdict: m[1]!.toLowerCase() as 'pass' | 'fail', reason: reason(m[2] ?? '') };
  }
  const pass = /\bPASS(ED|ES)?\b/.test(text);
  const fail = /\bFAIL(ED|S)?\b/.test(text);
  if (pass !== fail) return { verdict: pass ? 'pass' : 'fail', reason: reason('') };
  return {
    verdict: null,
    reason: `the grader's reply had ${pass ? 'both PASS and FAIL' : 'no PASS or FAIL'}: "${text.slice(0, 120)}"`,
  };
}

export async function gradeRubric(
  model: LanguageModel,
  input: GradeInput,
  signal?: AbortSignal,
): Promise<Grade & { tokens: number }> {
  const result = await generateText({ model, prompt: rubricPrompt(input), abortSignal: signal, maxOutputTokens: 300 });
  return { ...parseGrade(result.text), tokens: result.usage.totalTokens ?? 0 };
}
