/**
 * Output evals: each case of a skill's `evals/evals.json` run in scratch chats through the real turn (the chat
 * route's `runChatTurn`, with its turn slot, lease and the sandbox's run slots shared fairly by person), once per
 * arm and run: with the skill in the catalog, and without it (removed from that chat's catalog). A run passes when
 * its answer completes and every check holds. A passed run's scratch chat is deleted; a failed one is kept, titled
 * `Eval · <skill> · <case> · <arm>`, so its transcript is one click away.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { LanguageModel } from 'ai';
import { runChatTurn, type TurnApp, turnDeps } from '../chat/turn';
import type { Asker } from '../chat/turn/deps';
import type { ChatMessage } from '../chat/wire-types';
import { relativeInside } from '../paths';
import type { Skill } from '../skills/types';
import { safeFileName } from '../workspace/file-names';
import { deleteWorkspace, saveUpload } from '../workspace/workspace';
import { CASE_FILES_DIR, type EvalCase } from './cases-file';
import { type CheckResult, runChecks } from './checks';
import { countedModel } from './counted-model';

export const ARMS = ['with', 'without'] as const;
export type Arm = (typeof ARMS)[number];
export const ARM_LABELS: Record<Arm | 'earlier', string> = {
  with: 'with the skill',
  without: 'without the skill',
  earlier: 'earlier version',
};
export const MAX_EVAL_RUNS = 10;

export interface RunResult {
  caseId: string;
  arm: Arm;
  /** 1..runs */
  run: number;
  passed: boolean;
  checks: CheckResult[];
  durationMs: number;
  /** The turn's tokens and the grader's, as the model reported them (the offline model estimates). */
  tokens: number;
  /** The scratch chat, kept when the run failed (its transcript); null once deleted. */
  chatId: string | null;
}

export interface CaseSummary {
  id: string;
  passed: number;
  total: number;
}

export interface ArmSummary {
  arm: Arm;
  passed: number;
  total: number;
  durationMs: number;
  tokens: number;
  cases: CaseSummary[];
}

export interface OutputEvalReport {
  skill: string;
  contentHash: string;
  model: string;
  runsPerCase: number;
  cases: Array<{ id: string; prompt: string }>;
  /** Entries of the cases file that could not be read. */
  problems: string[];
  arms: ArmSummary[];
  runs: RunResult[];
  /** The last finished run of another content hash of this skill, its with-skill arm: what "earlier" shows. */
  earlier: { runId: number; contentHash: string; at: string; arm: ArmSummary } | null;
}

export interface OutputEvalOptions {
  userId: string;
  asker?: Asker;
  runs: number;
  /** Stops the evals: the running turn is stopped, no further run starts. */
  signal?: AbortSignal;
  /** Called after each run with the report so far. */
  onProgress?: (report: OutputEvalReport) => void | Promise<void>;
  /** Keep every scratch chat, passed or not (default: only failed ones). */
  keepChats?: boolean;
}

export function summarise(runs: readonly RunResult[], cases: readonly { id: string }[]): ArmSummary[] {
  return ARMS.flatMap((arm) => {
    const mine = runs.filter((r) => r.arm === arm);
    if (mine.length === 0) return [];
    return [
      {
        arm,
        passed: mine.filter((r) => r.passed).length,
        total: mine.length,
        durationMs: mine.reduce((sum, r) => sum + r.durationMs, 0),
        tokens: mine.reduce((sum, r) => sum + r.tokens, 0),
        cases: cases.map(({ id }) => {
          const ofCase = mine.filter((r) => r.caseId === id);
          return { id, passed: ofCase.filter((r) => r.passed).length, total: ofCase.length };
        }),
      },
    ];
  });
}

/** Copies a case's input files from the skill's `evals/files/` into the chat's workspace; a sentence on failure. */
async function copyInputs(
  app: TurnApp,
  skill: Skill,
  c: EvalCase,
  chatId: string,
  owner: string,
): Promise<string | null> {
  const base = path.join(skill.dir, CASE_FILES_DIR);
  const workspace = app.config.execution.workspace;
  for (const rel of c.files) {
    const file = path.join(base, rel);
    const name = safeFileName(path.basename(rel));
    if (relativeInside(base, file) === null || name === null) return `${rel} is not a path inside ${CASE_FILES_DIR}`;
    let data: Buffer;
    try {
      const handle = await fs.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      try {
        data = await handle.readFile();
      } finally {
        await handle.close();
      }
    } catch {
      return `${CASE_FILES_DIR}/${rel} could not be read`;
    }
    const saved = await saveUpload(workspace.dir, chatId, name, new Uint8Array(data), workspace, owner);
    if (!saved.ok) return `${rel}: ${saved.error}`;
  }
  return null;
}

const answerText = (message: ChatMessage | undefined) =>
  message?.role === 'assistant' ? message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('') : '';

async function runOnce(
  app: TurnApp,
  skill: Skill,
  c: EvalCase,
  arm: Arm,
  run: number,
  options: OutputEvalOptions,
): Promise<RunResult> {
  const started = Date.now();
  const store = app.store.forUser(options.userId);
  const chatId = `eval-${randomUUID()}`;
  await store.createChat({ id: chatId, title: `Eval · ${skill.name} · ${c.id} · ${ARM_LABELS[arm]}` });
  const result = (checks: CheckResult[], tokens: number): RunResult => ({
    caseId: c.id,
    arm,
    run,
    passed: checks.every((k) => k.passed),
    checks,
    durationMs: Date.now() - started,
    tokens,
    chatId,
  });
  const copyProblem = await copyInputs(app, skill, c, chatId, options.userId);
  if (copyProblem) return result([{ kind: 'answer', label: 'input files', passed: false, detail: copyProblem }], 0);

  const deps = await turnDeps(app, options.userId, chatId, options.asker);
  const counted = countedModel(deps.model.model);
  const skills =
    arm === 'with'
      ? deps.skills
      : { ...deps.skills, skills: deps.skills.skills.filter((s) => s.name !== skill.name), matcher: undefined };
  const stop = () => app.turns.stop(chatId);
  options.signal?.addEventListener('abort', stop);
  try {
    const response = await runChatTurn(
      {
        chatId,
        trigger: 'submit-message',
        message: { id: `${chatId}-prompt`, role: 'user', parts: [{ type: 'text', text: c.prompt }] },
      },
      { ...deps, skills, model: { ...deps.model, model: counted.model } },
    );
    // Drained here as the browser would; the turn also stores it from its own copy.
    await response.text();
    await app.turns.wait(chatId);
  } finally {
    options.signal?.removeEventListener('abort', stop);
  }
  const answer = (await store.loadChatView(chatId))?.messages.at(-1);
  const meta = answer?.role === 'assistant' ? answer.metadata : undefined;
  const { checks, graderTokens } = await runChecks(
    c,
    {
      chatId,
      owner: options.userId,
      answer: answerText(answer),
      status: answer?.role !== 'assistant' ? 'missing' : (meta?.status ?? 'complete'),
      ...(meta?.error ? { error: meta.error } : {}),
    },
    {
      execution: app.config.execution,
      grader: deps.model.model as LanguageModel,
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
  // A tool call left waiting for approval (the shell under `ask`): nobody answers in a scratch chat, so say why.
  const waiting = answer?.parts.some((p) => 'state' in p && p.state === 'approval-requested');
  if (waiting) {
    checks.unshift({
      kind: 'answer',
      label: 'no approval needed',
      passed: false,
      detail: 'a tool call waited for an approval (the shell or the skill asks first); evals cannot answer it',
    });
  }
  return result(checks, counted.tokens() + graderTokens);
}

/** Deletes a passed run's scratch chat and its files; what fails to go is left, never thrown. */
async function discard(app: TurnApp, userId: string, chatId: string): Promise<boolean> {
  try {
    await app.store.forUser(userId).deleteChat(chatId);
    await deleteWorkspace(app.config.execution.workspace.dir, chatId);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs every case `runs` times in each arm, one run at a time (the author's other chats keep their own turn slots,
 * and the sandbox serves people round robin, so a person's chat never waits behind a whole eval). Stopping ends the
 * running turn and leaves the rest unrun; the report says what ran.
 */
export async function runOutputEvals(
  app: TurnApp,
  skill: Skill,
  cases: readonly EvalCase[],
  base: Omit<OutputEvalReport, 'arms' | 'runs' | 'cases' | 'skill' | 'runsPerCase'>,
  options: OutputEvalOptions,
): Promise<OutputEvalReport> {
  const runs: RunResult[] = [];
  const report = (): OutputEvalReport => ({
    ...base,
    skill: skill.name,
    runsPerCase: options.runs,
    cases: cases.map((c) => ({ id: c.id, prompt: c.prompt })),
    arms: summarise(runs, cases),
    runs: [...runs],
  });
  for (const arm of ARMS) {
    for (const c of cases) {
      for (let run = 1; run <= options.runs; run++) {
        if (options.signal?.aborted) return report();
        const result = await runOnce(app, skill, c, arm, run, options);
        if (result.passed && !options.keepChats && result.chatId) {
          if (await discard(app, options.userId, result.chatId)) result.chatId = null;
        }
        runs.push(result);
        await options.onProgress?.(report());
      }
    }
  }
  return report();
}
