/**
 * One chat turn: validate, persist the user message, pick explicit invocation or the model, stream the answer as
 * AI SDK UI message chunks, and persist the answer on end, abort and error.
 *
 * The answer is persisted from a tee'd copy of the stream (`consumeSseStream`), so a closed tab does not lose it:
 * the model keeps running until it ends or a person presses Stop (`stopTurn`), which aborts the model.
 */
import { randomUUID } from 'node:crypto';
import {
  convertToModelMessages,
  createUIMessageStream,
  createUIMessageStreamResponse,
  isStepCount,
  type LanguageModel,
  streamText,
  toUIMessageStream,
  type UIMessageStreamWriter,
} from 'ai';
import { refusal as refusalOf } from '../access/access';
import type { AccessResolver } from '../access/resolver';
import type { AppConfig } from '../config';
import { AppError } from '../errors';
import { countTokens } from '../skills/catalog';
import { parseInvocation } from '../skills/invocation';
import {
  type ActivationHow,
  activateSkill,
  createSkillTools,
  offeredTools,
  type SkillToolContext,
  SkillToolError,
} from '../tools';
import { TOOL_ACTIVATE } from '../tools/names';
import { listWorkspace } from '../workspace/workspace';
import { type ApprovalContext, applyApprovals, createToolApproval } from './approvals';
import { compactHistory, compactionNote } from './compaction';
import { buildInstructions } from './instructions';
import { messageText } from './request';
import { renderActiveSkills } from './skill-content';
import { buildSkillView, type SkillSource } from './skill-view';
import type { ChatStore } from './store';
import type { ActivateOutput, ChatMessage, ChatRequestBody } from './types';

/** `workspace_files: [...]` for the instructions, or nothing for a chat without files. */
async function workspaceFilesLine(config: AppConfig, chatId: string): Promise<string> {
  if (!config.scripts) return '';
  const files = await listWorkspace(config.scripts.workspace.dir, chatId);
  if (files.length === 0) return '';
  const listed = files.slice(0, 100).map(({ name, size, mediaType }) => ({ name, size, mediaType }));
  return `\n\nworkspace_files (the chat's files, in /workspace for scripts): ${JSON.stringify(listed)}`;
}

/** Steps per turn: activation, a few resource reads, the answer. */
export const MAX_STEPS = 8;

export interface TurnDeps {
  store: ChatStore;
  config: AppConfig;
  /** Loaded skills (the registry's current scan), with its matcher and use counts when known. */
  skills: Omit<SkillSource, 'access'>;
  model: { model: LanguageModel; label: string; contextWindow?: number };
  /** Who may use which skill, and how (server/access/). */
  access: AccessResolver;
}

interface ActiveTurn {
  controller: AbortController;
  done: Promise<void>;
}

// Kept on globalThis so Next dev reloads and every route module share one table of running turns.
const g = globalThis as typeof globalThis & { __skillchatTurns?: Map<string, ActiveTurn> };
if (!g.__skillchatTurns) g.__skillchatTurns = new Map();
const activeTurns = g.__skillchatTurns;

/** Stops the running turn of a chat (the Stop button). Returns false when nothing was running. */
export function stopTurn(chatId: string): boolean {
  const turn = activeTurns.get(chatId);
  if (!turn) return false;
  turn.controller.abort();
  return true;
}

/** Resolves when the chat's running turn (if any) has been persisted. For tests and graceful shutdown. */
export async function waitForTurn(chatId: string): Promise<void> {
  await activeTurns.get(chatId)?.done;
}

function safeErrorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // Model/provider errors can quote request URLs but never our files; strip anything that looks like a local path.
  return `The answer failed: ${message.replace(/(^|\s)\/[^\s'"]+/g, '$1<path>')}`.slice(0, 500);
}

function writeText(writer: UIMessageStreamWriter<ChatMessage>, text: string) {
  const id = randomUUID();
  writer.write({ type: 'text-start', id });
  writer.write({ type: 'text-delta', id, delta: text });
  writer.write({ type: 'text-end', id });
}

/** Writes an activation card (and a line of text) for an explicit `/name`, with no model call. */
async function answerInvocation(
  writer: UIMessageStreamWriter<ChatMessage>,
  input: {
    messageId: string;
    metadata: ChatMessage['metadata'];
    name: string;
    activate: () => Promise<ActivateOutput>;
  },
) {
  writer.write({ type: 'start', messageId: input.messageId, messageMetadata: input.metadata });
  const toolCallId = `explicit-${randomUUID()}`;
  writer.write({ type: 'tool-input-available', toolCallId, toolName: TOOL_ACTIVATE, input: { name: input.name } });
  try {
    const output = await input.activate();
    writer.write({ type: 'tool-output-available', toolCallId, output });
    writeText(
      writer,
      output.alreadyActive
        ? `**${output.name}** is already active in this chat; its instructions still apply.`
        : `**${output.name}** is active. Its instructions apply to the rest of this chat.`,
    );
  } catch (error) {
    writer.write({ type: 'tool-output-error', toolCallId, errorText: (error as Error).message });
  }
  writer.write({ type: 'finish' });
}

/** Applies the trigger to the stored history: the messages the model answers and the id the answer is stored under. */
async function prepareHistory(
  body: ChatRequestBody,
  history: ChatMessage[],
  deps: TurnDeps,
  approvalCtx: () => ApprovalContext,
): Promise<{ history: ChatMessage[]; answerId: string }> {
  const { store } = deps;
  const { chatId } = body;
  if (body.trigger === 'submit-message') {
    // The time is the server's: a browser's clock is neither trusted nor in step with the answers' times.
    const message: ChatMessage = { ...body.message!, metadata: { ...body.message!.metadata, createdAt: Date.now() } };
    if (history.some((m) => m.id === message.id)) {
      throw new AppError('conflict:chat', `Message "${message.id}" was already sent`);
    }
    store.saveUserMessage(chatId, message);
    if (history.length === 0) store.setTitleFromFirstMessage(chatId, messageText(message));
    return { history: [...history, message], answerId: randomUUID() };
  }
  if (body.trigger === 'approval-response') {
    // The answer continues the message that asked: same id, the approved tools run first.
    const answered = await applyApprovals(history.at(-1), body.approvals ?? [], approvalCtx());
    store.replaceMessage(chatId, answered);
    return { history: [...history.slice(0, -1), answered], answerId: answered.id };
  }
  const lastUser = history.findLastIndex((m) => m.role === 'user');
  if (lastUser < 0) throw new AppError('bad_request:chat', 'There is no message to answer again');
  store.deleteMessagesAfter(chatId, history[lastUser]!.id);
  return { history: history.slice(0, lastUser + 1), answerId: randomUUID() };
}

export async function runChatTurn(body: ChatRequestBody, deps: TurnDeps): Promise<Response> {
  const { store, config } = deps;
  const { chatId } = body;
  const chat = store.getChat(chatId);
  if (!chat) throw new AppError('not_found:chat', `Chat "${chatId}" does not exist`);
  if (activeTurns.has(chatId)) {
    throw new AppError('conflict:chat', 'This chat is still answering; stop it or wait for the answer to end');
  }

  const stored = store.getMessages(chatId);
  const firstUser = stored.find((m) => m.role === 'user') ?? body.message;
  const view = buildSkillView({
    source: { ...deps.skills, access: deps.access.resolveAll(deps.skills.skills) },
    config,
    contextWindow: deps.model.contextWindow,
    chatId,
    relevanceText: firstUser ? messageText(firstUser) : '',
  });
  const skills = view.usable;
  const activated = new Set(store.getActivatedNames(chatId));
  const display = { appDir: config.appDir, home: config.home };
  let explicitSkill: string | undefined;
  const approvalContext = (): ApprovalContext => ({
    chatId,
    skills,
    access: deps.access,
    store,
    display,
    activated,
    explicitSkill,
  });

  const { history, answerId } = await prepareHistory(body, stored, deps, approvalContext);
  const continuing = body.trigger === 'approval-response';
  const lastUserText = messageText(history.findLast((m) => m.role === 'user') ?? { parts: [] });
  const invocation = continuing ? null : parseInvocation(lastUserText, (name) => view.all.has(name));
  explicitSkill = invocation?.name;
  const refusal = invocation ? refusalOf(view.access.get(invocation.name)!, 'explicit') : null;
  const catalog = view.catalog?.catalog ?? null;

  const assistantId = answerId;
  store.startAssistantMessage(chatId, assistantId);

  const controller = new AbortController();
  let resolveDone: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve;
  });
  activeTurns.set(chatId, { controller, done });
  let writerRef: UIMessageStreamWriter<ChatMessage> | null = null;
  const ctx: SkillToolContext = {
    skills,
    access: view.access,
    activationEnum: view.activationEnum,
    search: view.catalog && view.catalog.omitted > 0 ? { matcher: view.matcher } : null,
    activated,
    limits: config.limits,
    display,
    explicitSkill,
    onActivated: (name: string, how: ActivationHow) => {
      store.recordActivation(chatId, name, how);
      writerRef?.write({ type: 'data-activations', data: { names: [...activated].sort() } });
    },
    onScriptRun: (run) => store.recordScriptRun({ chatId, ...run }),
    signal: controller.signal,
    // Scripts run in this chat's workspace (issue 10).
    chatId,
    scripts: config.scripts,
  };
  // The model is told the workspace's files each turn (names, sizes, types); last, so the cached prefix holds.
  const workspaceLine = await workspaceFilesLine(config, chatId);
  // Skills activated on earlier turns keep their instructions in the model's input (Regenerate included).
  const skillContent = await renderActiveSkills([...activated], skills, {
    maxBytes: config.limits.maxResourceBytes,
    display,
  });

  const metadata = { model: deps.model.label, createdAt: Date.now() };

  const stream = createUIMessageStream<ChatMessage>({
    originalMessages: history,
    generateId: () => assistantId,
    execute: async ({ writer }) => {
      writerRef = writer;
      if (invocation && (refusal || !invocation.rest)) {
        // A refused or bare `/name` is answered by the server: the person asked for the skill, not for a reply.
        await answerInvocation(writer, {
          messageId: assistantId,
          metadata: { ...metadata, model: 'skillchat' },
          name: invocation.name,
          activate: refusal
            ? () => Promise.reject(new SkillToolError(refusal))
            : () => activateSkill(ctx, invocation.name, 'explicit'),
        });
        return;
      }

      const forModel = invocation
        ? history.map((m, i) =>
            i === history.length - 1 ? { ...m, parts: [{ type: 'text' as const, text: invocation.rest }] } : m,
          )
        : history;
      const tools = createSkillTools(ctx);
      const converted = await convertToModelMessages(forModel, { tools, ignoreIncompleteToolCalls: true });
      const baseInstructions = (explicitSkill?: string) =>
        buildInstructions({ catalog, activatedNames: [...activated].sort(), explicitSkill, skillContent }) +
        workspaceLine;
      // A long chat: the oldest turns leave the model's input (the skills' instructions stay, above) and the
      // answer carries a marker the chat shows as a divider.
      const { messages, dropped } = compactHistory(converted, {
        contextWindow: deps.model.contextWindow,
        reservedTokens: countTokens(baseInstructions()),
      });
      if (dropped > 0) writer.write({ type: 'data-compaction', data: { dropped } });
      const instructionsFor = (explicitSkill?: string) =>
        baseInstructions(explicitSkill) + (dropped > 0 ? compactionNote(dropped) : '');
      const result = streamText({
        model: deps.model.model,
        instructions: instructionsFor(),
        messages,
        tools,
        stopWhen: isStepCount(MAX_STEPS),
        abortSignal: controller.signal,
        toolApproval: createToolApproval(approvalContext()),
        prepareStep: async ({ stepNumber }) => {
          // Each tool's declaration says when it is offered (the script tool: while an active skill has scripts).
          const activeTools = tools ? await offeredTools(ctx) : [];
          if (!invocation || !catalog) return { activeTools };
          // Force activation on the first step only: a top-level toolChoice would force it on every step and loop.
          if (stepNumber === 0) {
            return {
              activeTools,
              toolChoice: { type: 'tool', toolName: TOOL_ACTIVATE },
              instructions: instructionsFor(invocation.name),
            };
          }
          if (stepNumber === 1) return { activeTools, instructions: instructionsFor() };
          return { activeTools };
        },
      });
      writer.merge(
        toUIMessageStream({
          stream: result.stream,
          tools,
          redactToolErrors: false,
          messageMetadata: ({ part }) => (part.type === 'start' ? metadata : undefined),
          onError: safeErrorMessage,
        }),
      );
    },
    onError: safeErrorMessage,
    onEnd: ({ responseMessage, isAborted, outcome }) => {
      try {
        const failed = outcome.status === 'failed';
        store.finishAssistantMessage(assistantId, {
          parts: responseMessage.parts,
          // The model's label and the answer's time, so a reloaded chat and its export show them.
          metadata: responseMessage.metadata,
          status: isAborted ? 'aborted' : failed ? 'error' : 'complete',
          error: failed ? safeErrorMessage('error' in outcome ? outcome.error : 'unknown error') : undefined,
        });
        store.touchChat(chatId);
      } finally {
        activeTurns.delete(chatId);
        resolveDone();
      }
    },
  });

  return createUIMessageStreamResponse({
    stream,
    // Drain a copy on the server so the answer is finished and stored even when the browser goes away.
    consumeSseStream: async ({ stream: copy }) => {
      const reader = copy.getReader();
      while (!(await reader.read()).done) {
        /* drain */
      }
    },
  });
}
