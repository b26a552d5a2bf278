/**
 * An output case's checks over what one run left: files that must exist and text they must contain (read through
 * the workspace's one opener, no links followed), a command that must exit 0 in the sandbox in the run's workspace,
 * and a rubric the configured model grades. Every check runs, so a failed run says everything that went wrong.
 */
import type { LanguageModel } from 'ai';
import type { ExecutionConfig } from '../sandbox/config';
import { runCommand } from '../sandbox/run';
import { listWorkspace, openWorkspaceFile } from '../workspace/workspace';
import type { EvalCase } from './cases-file';
import { gradeRubric } from './grade';

export type CheckKind = 'files_exist' | 'file_contains' | 'command' | 'rubric' | 'answer';

export interface CheckResult {
  kind: CheckKind;
  /** What was checked, as the author wrote it (a path, a command, the rubric's first words). */
  label: string;
  passed: boolean;
  /** Why it failed, in a sentence; empty when it passed. */
  detail: string;
}

export interface RunFacts {
  chatId: string;
  /** The person whose run it is: the command's sandbox share. */
  owner: string;
  /** The answer's text, and how it ended (`complete`, `aborted`, `error`). */
  answer: string;
  status: string;
  error?: string;
}

export interface CheckDeps {
  execution: ExecutionConfig;
  /** The configured model, for rubrics. */
  grader: LanguageModel;
  signal?: AbortSignal;
}

const MAX_READ_BYTES = 1024 * 1024;

async function readText(root: string, chatId: string, rel: string): Promise<string | null> {
  const opened = await openWorkspaceFile(root, chatId, rel);
  if (!opened) return null;
  try {
    const buffer = Buffer.alloc(Math.min(opened.size, MAX_READ_BYTES));
    await opened.handle.read(buffer, 0, buffer.length, 0);
    return buffer.toString('utf8');
  } finally {
    await opened.handle.close();
  }
}

const short = (text: string, n = 60) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

export async function runChecks(
  c: EvalCase,
  run: RunFacts,
  deps: CheckDeps,
): Promise<{
  checks: CheckResult[];
  graderTokens: number;
}> {
  const root = deps.execution.workspace.dir;
  const checks: CheckResult[] = [];
  let graderTokens = 0;
  // An answer that failed or was stopped fails the run whatever its files say: the case was not done.
  if (run.status !== 'complete') {
    checks.push({
      kind: 'answer',
      label: 'the answer ends',
      passed: false,
      detail: `the answer ended as ${run.status}${run.error ? `: ${short(run.error, 200)}` : ''}`,
    });
  }
  for (const rel of c.checks.filesExist) {
    const opened = await openWorkspaceFile(root, run.chatId, rel);
    await opened?.handle.close();
    checks.push({ kind: 'files_exist', label: rel, passed: !!opened, detail: opened ? '' : `${rel} was not made` });
  }
  for (const { path: rel, text } of c.checks.fileContains) {
    const content = await readText(root, run.chatId, rel);
    const passed = content?.includes(text) ?? false;
    checks.push({
      kind: 'file_contains',
      label: `${rel} contains "${short(text, 40)}"`,
      passed,
      detail: passed ? '' : content === null ? `${rel} was not made` : `${rel} does not contain "${short(text, 40)}"`,
    });
  }
  if (c.checks.command) {
    const result = await runCommand(c.checks.command, {
      chatId: run.chatId,
      owner: run.owner,
      execution: deps.execution,
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    const passed = result.exitCode === 0;
    const output = (result.error ?? (result.stderr || result.stdout)).trim();
    checks.push({
      kind: 'command',
      label: short(c.checks.command),
      passed,
      detail: passed ? '' : `exited ${result.exitCode}${output ? `: ${short(output, 200)}` : ''}`,
    });
  }
  if (c.checks.rubric) {
    const files = (await listWorkspace(root, run.chatId)).map((f) => `${f.name} (${f.size} bytes)`);
    try {
      const grade = await gradeRubric(
        deps.grader,
        {
          rubric: c.checks.rubric,
          prompt: c.prompt,
          answer: run.answer,
          files,
          ...(c.expectedOutput ? { expectedOutput: c.expectedOutput } : {}),
        },
        deps.signal,
      );
      graderTokens = grade.tokens;
      checks.push({
        kind: 'rubric',
        label: short(c.checks.rubric),
        passed: grade.verdict === 'pass',
        detail:
          grade.verdict === 'pass' ? '' : grade.verdict === 'fail' ? `graded FAIL: ${grade.reason}` : grade.reason,
      });
    } catch (error) {
      checks.push({
        kind: 'rubric',
        label: short(c.checks.rubric),
        passed: false,
        detail: `the grader failed: ${short((error as Error).message, 200)}`,
      });
    }
  }
  return { checks, graderTokens };
}
