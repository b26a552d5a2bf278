/**
 * `sandbox_exec`: the model's shell. Runs a bash command line in the chat's sandbox (server/sandbox/run.ts, the same
 * path as a skill's scripts), with the chat's activated skills read-only at /skills/<name>. Offered while the
 * person's shell mode is not `off` (server/sandbox/shell.ts); under `ask` each command waits for the person's
 * approval of that exact command line. The card follows the run: queued, running with its output so far, done.
 */
import { z } from 'zod';
import { allowed, type ConsentAsk } from '../consent/ask';
import { MAX_COMMAND_CHARS, runCommand, sandboxReady } from '../sandbox/run';
import { hiddenTextDiagnostic, scanHiddenText } from '../skills/load/hidden-text';
import { WARNING_MARK } from './activate-consent';
import { type ConsentToolContext, type SkillToolContext, SkillToolError } from './context';
import { defineTool, type ToolCall } from './define';
import { TOOL_SHELL } from './names';
import { commandNetworkAsks, commandNetworkConsent, commandNetworkSentence } from './network-consent';
import { egressLines, filesOutput, fillServedCopies } from './run-script';
import { changedSkillRefusal } from './served-pin';
import { coveredByPrefixes } from './shell-grants';
import { standingPrefix } from './shell-prefix';

export interface ShellInput {
  command: string;
  timeoutSeconds?: number;
}

const producedFile = z.object({
  name: z.string(),
  size: z.number(),
  mediaType: z.string(),
  status: z.enum(['created', 'changed']),
  /** The copy of this version the chat keeps (the viewer's earlier versions). */
  version: z.string().optional(),
});

const shellOutput = z.object({
  command: z.string(),
  /** `queued`: waiting for a free run slot; `running`: output so far; `done`: the result. */
  state: z.enum(['queued', 'running', 'done']),
  /** Runs ahead of this one while queued. */
  ahead: z.number().optional(),
  exitCode: z.number().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  durationMs: z.number(),
  queuedMs: z.number().optional(),
  truncated: z.boolean(),
  timedOut: z.boolean(),
  /** Which limit stopped the run (`processes`, `memory`, `timeout`...), when one did. */
  limit: z.string().optional(),
  error: z.string().optional(),
  /** How to install a missing runtime package or tool the output shows. */
  hint: z.string().optional(),
  files: z.array(producedFile).optional(),
  /** What the command reached or tried to reach through its egress proxy, per host:port; absent without egress. */
  egress: egressLines.optional(),
});

export type ShellOutput = z.infer<typeof shellOutput>;

/** How often a running command's card gets its output so far. */
const PROGRESS_EVERY_MS = 300;

/** The activated skills, as the sandbox mounts them. */
function activatedSkills(ctx: SkillToolContext) {
  return [...ctx.activated].flatMap((name) => {
    const skill = ctx.skills.get(name);
    return skill ? [{ name: skill.name, dir: skill.dir }] : [];
  });
}

/** How much of a command line the run record keeps (a heredoc can be a whole program). */
const RECORDED_COMMAND_CHARS = 2_000;

/** Bridges the run's callbacks to the card's states: each `yield` is one preliminary output. */
async function* execute(
  ctx: SkillToolContext,
  { command, timeoutSeconds }: ShellInput,
  call?: ToolCall,
): AsyncGenerator<ShellOutput> {
  const base = { command, exitCode: null, durationMs: 0, truncated: false, timedOut: false };
  let stdout = '';
  let stderr = '';
  // Written by the run's callbacks, read by the loop below.
  const seen: { latest: ShellOutput | null } = { latest: null };
  let wake: (() => void) | null = null;
  const post = (update: ShellOutput) => {
    seen.latest = update;
    wake?.();
  };
  const started = performance.now();
  // Served skills are mounted from the host's copy: filled (verified) before the command runs, and only as listed
  // when they were activated (served-pin.ts).
  const active = [...ctx.activated].map((n) => ctx.skills.get(n));
  const changed = changedSkillRefusal(ctx, active);
  if (changed) throw new SkillToolError(changed);
  const unready = await fillServedCopies(active);
  if (unready) throw new SkillToolError(unready);
  const run = runCommand(command, {
    chatId: ctx.chatId,
    execution: ctx.execution,
    signal: ctx.signal,
    owner: ctx.owner ?? ctx.chatId,
    skills: activatedSkills(ctx),
    ...(timeoutSeconds ? { timeoutMs: timeoutSeconds * 1000 } : {}),
    // A command is attributed to every skill active in the chat: the union of their grants (README, "Skills that
    // reach the network"), and the declared hosts its approval named.
    egress: ctx.egress?.(
      [...ctx.activated].flatMap((n) => ctx.skills.get(n) ?? []),
      call ? ctx.approvedNetwork?.(call.toolCallId) : undefined,
    ),
    onQueued: (ahead) => post({ ...base, state: 'queued', ahead, stdout: '', stderr: '' }),
    onStarted: () => post({ ...base, state: 'running', stdout: '', stderr: '' }),
    onOutput: (stream, text) => {
      if (stream === 'stdout') stdout += text;
      else stderr += text;
    },
  });
  let done = false;
  void run.finally(() => {
    done = true;
    wake?.();
  });
  let lastSent = '';
  while (!done) {
    await new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, PROGRESS_EVERY_MS);
    });
    wake = null;
    if (done) break;
    const current = seen.latest;
    if (!current) continue;
    const update: ShellOutput =
      current.state === 'running'
        ? { ...current, stdout, stderr, durationMs: Math.round(performance.now() - started) }
        : current;
    const key = `${update.state}:${update.stdout.length}:${update.stderr.length}`;
    if (key !== lastSent) {
      lastSent = key;
      yield update;
    }
  }
  const result = await run;
  if (result.errorCode === 'invalid-command') throw new Error(result.error ?? 'The command cannot run');
  // On the record beside scripts: who ran what, in which chat, with which skills active, and how it ended.
  await ctx.onScriptRun?.({
    kind: 'command',
    skillName: [...ctx.activated].join(' '),
    script: command.length > RECORDED_COMMAND_CHARS ? `${command.slice(0, RECORDED_COMMAND_CHARS - 1)}…` : command,
    args: [],
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
  });
  yield {
    command,
    state: 'done',
    exitCode: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
    durationMs: result.durationMs,
    ...(result.queuedMs ? { queuedMs: result.queuedMs } : {}),
    truncated: result.truncated,
    timedOut: result.timedOut,
    ...(result.limit ? { limit: result.limit } : {}),
    ...(result.error ? { error: result.error } : {}),
    ...(result.hint ? { hint: result.hint } : {}),
    files: filesOutput(result.files),
    ...(result.egress ? { egress: result.egress } : {}),
  };
}

/**
 * How a command asks, per the person's shell mode: the exact command line is the subject and the version, so an
 * approval covers what is shown and nothing else, once; "Always allow" keeps a standing grant of the command's prefix
 * for this person instead (never for a command that also asks for hosts). A command runs with every
 * active skill, so the hosts those under `ask` declare and are not granted are named too (network-consent.ts): under
 * `allow` they are the one thing asked about, under `ask` one more sentence of the command's card.
 */
export function commandConsent(
  ctx: Pick<ConsentToolContext, 'shell'> & Partial<Pick<ConsentToolContext, 'ungrantedHosts' | 'activated' | 'skills'>>,
  input: Partial<ShellInput>,
): ConsentAsk | null {
  const command = typeof input.command === 'string' ? input.command : '';
  const subject = { kind: 'shell-command', command } as const;
  const version = async () => command;
  const mode = ctx.shell ?? 'off';
  if (mode === 'off') {
    return { subject, rule: 'deny', reason: 'The shell is switched off for this person.', version, always: false };
  }
  // Hidden characters in the command (a bidi override reorders what is shown) are a warning line of their own on
  // any card it gets, as for a skill's text; the card marks each one where it stands (shell-card.tsx).
  const hidden = hiddenTextDiagnostic('The command', scanHiddenText(command), 'warning');
  const warning = hidden ? `\n${WARNING_MARK}${hidden.message}` : '';
  const asks = commandNetworkAsks(ctx);
  if (mode === 'allow') {
    if (asks.length === 0) return allowed(subject, version);
    const network = commandNetworkConsent(asks, command);
    return { ...network, reason: network.reason + warning };
  }
  // One line: the card shows the exact command (the call's input) under it, and that command is what runs.
  const reason =
    "Run a command in the chat's sandbox: it sees the chat's files and the activated skills, and reaches only the hosts granted to them.";
  if (asks.length > 0) {
    // Hosts to approve are never covered by a standing grant: the card asks, once.
    return {
      subject,
      rule: 'ask',
      reason: reason + commandNetworkSentence(asks) + warning,
      version,
      always: false,
      network: asks,
    };
  }
  // A command with hidden characters always shows its card, with the warning: no standing grant covers it.
  if (hidden) return { subject, rule: 'ask', reason: reason + warning, version, always: false };
  // "Always allow" keeps the person's own grant for the command's prefix (shell-prefix.ts); a later command whose
  // every part starts with a granted prefix runs without a card, within the shell mode the operator set.
  const prefix = standingPrefix(command);
  return {
    subject,
    rule: 'ask',
    reason: reason + warning,
    version,
    always: prefix !== null,
    standing: {
      subject: { kind: 'shell-prefix', prefix: prefix ?? '' },
      covered: (granted) =>
        coveredByPrefixes(
          command,
          granted.flatMap((g) => (g.kind === 'shell-prefix' ? [g.prefix] : [])),
        ),
    },
  };
}

export const shellTool = defineTool({
  name: TOOL_SHELL,
  descriptionFile: new URL('./sandbox-exec.txt', import.meta.url),
  input: (ctx) =>
    z.object({
      command: z.string().min(1).max(MAX_COMMAND_CHARS).describe('A bash command line, run in /workspace'),
      timeoutSeconds: z
        .number()
        .int()
        .min(1)
        .max(Math.round((ctx.execution?.sandbox.timeoutMs ?? 60_000) / 1000))
        .optional()
        .describe('Stop the command after this many seconds (at most the configured limit)'),
    }),
  output: shellOutput,
  consent: commandConsent,
  offered: async (ctx) =>
    (ctx.shell ?? 'off') !== 'off' && ctx.execution !== undefined && (await sandboxReady(ctx.execution)).ok,
  execute,
});
