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
  type InferUIMessageChunk,
  isStepCount,
  type LanguageModel,
  streamText,
  toUIMessageStream,
  type UIMessageStreamWriter,
} from 'ai';
import { refusal as refusalOf } from '../access/access';
import type { AccessOptions, AccessResolver } from '../access/resolver';
import type { AppConfig } from '../config';
import { AppError } from '../errors';
import { type McpSource, mcpTurnTools } from '../mcp/tools';
import type { ShellMode } from '../sandbox/config';
import { countTokens } from '../skills/catalog/catalog';
import { parseInvocations } from '../skills/invocation';
import {
  type ActivationHow,
  activateSkill,
  createSkillTools,
  offeredTools,
  type SkillToolContext,
  SkillToolError,
  type SkillTools,
} from '../tools';
import { TOOL_ACTIVATE, type ToolName } from '../tools/names';
import { readDocument } from '../workspace/extract';
import { listWorkspace } from '../workspace/workspace';
import { type ActiveTurn, claimTurn, SHUTDOWN_REASON } from './active-turns';
import { type ApprovalContext, applyApprovals, createToolApproval } from './approvals';
import { attachDocuments } from './attached-documents';
import { type ConversationCompaction, compactConversation, compactionNote } from './compaction';
import { titleAfterAnswer } from './generated-title';
import { buildInstructions } from './instructions';
import { persistAsItStreams } from './progress';
import { messageText } from './request';
import { resumableStreams } from './resumable';
import { renderActiveSkills } from './skill-content';
import { buildSkillView, type SkillSource } from './skill-view';
import type { ChatStore } from './store';
import { summariseMessages } from './summary';
import { deriveTitle } from './title';
import type { ActivateOutput, ChatDataParts, ChatMessage, ChatRequestBody } from './types';

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
  /**
   * The chat's model (`ModelRegistry.choose`); `note` says why it is not the one the chat picked. `provider` absent
   * or `offline`: the offline model, which neither names chats nor summarises (a real model does both).
   */
  model: { model: LanguageModel; label: string; contextWindow?: number; note?: string; provider?: string };
  /** Who may use which skill, and how (server/access/). */
  access: AccessResolver;
  /** The person's own layer over the operator's answer (`personalAccess`): the skills they switched off. */
  personal?: AccessOptions;
  /** Store the answer as it streams (default); false only to measure what that costs (`npm run bench`). */
  incremental?: boolean;
  /** The person's shell mode (server/sandbox/shell.ts); absent: off. */
  shell?: ShellMode;
  /** Who is asking: their runs share one fair share of the server's run slots. */
  owner?: string;
  /** Tools of the MCP servers connected now (server/mcp/); the person's switched-off servers are in `personal`. */
  mcp?: McpSource;
}

export { stopTurn, waitForTurn } from './active-turns';

const isRealModel = (model: TurnDeps['model']) => model.provider !== undefined && model.provider !== 'offline';

/**
 * The documents attached to the person's messages, as text before their words (attached-documents.ts), read in the
 * sandbox once per file. Not for the offline model: it takes the last message's text as the person's commands and
 * paths, and a document's text must not become those.
 */
async function withAttachedDocuments(
  messages: ChatMessage[],
  deps: TurnDeps,
  chatId: string,
  signal: AbortSignal,
): Promise<ChatMessage[]> {
  const scripts = deps.config.scripts;
  if (!scripts) return messages;
  return attachDocuments(messages, {
    read: (name) => readDocument(scripts, chatId, name, { signal, owner: deps.owner }),
    contextWindow: deps.model.contextWindow,
  });
}

/** What the answer's `data-compaction` part says; the summary text only on the turn that wrote it. */
function compactionData({ dropped, summary, summarisedNow }: ConversationCompaction): ChatDataParts['compaction'] {
  if (!summary) return { dropped };
  return {
    dropped,
    summarised: true,
    through: summary.through,
    ...(summarisedNow ? { summary: summary.summary } : {}),
  };
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

/** Writes an activation card (and a line of text) per skill of an explicit `/name` (or `/a /b`), with no model call. */
async function answerInvocation(
  writer: UIMessageStreamWriter<ChatMessage>,
  input: {
    messageId: string;
    metadata: ChatMessage['metadata'];
    names: readonly string[];
    activate: (name: string) => Promise<ActivateOutput>;
  },
) {
  writer.write({ type: 'start', messageId: input.messageId, messageMetadata: input.metadata });
  for (const name of input.names) {
    const toolCallId = `explicit-${randomUUID()}`;
    writer.write({ type: 'tool-input-available', toolCallId, toolName: TOOL_ACTIVATE, input: { name } });
    try {
      const output = await input.activate(name);
      writer.write({ type: 'tool-output-available', toolCallId, output });
      writeText(
        writer,
        output.alreadyActive
          ? `**${output.name}** is already active in this chat; its instructions still apply.`
          : `**${output.name}** is active. Its instructions apply to the rest of this chat.`,
      );
    } catch (error) {
      writer.write({ type: 'tool-output-error', toolCallId, errorText: (error as Error).message });
      break;
    }
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
    const edited = body.messageId ? history.findIndex((m) => m.id === body.messageId && m.role === 'user') : -1;
    if (edited >= 0) {
      // Issue 13: an edit and resend. The tail from the edited message on is kept as a version.
      await store.replaceTail(chatId, history[edited - 1]?.id ?? '', message);
      return { history: [...history.slice(0, edited), message], answerId: randomUUID() };
    }
    if (history.some((m) => m.id === message.id)) {
      throw new AppError('conflict:chat', `Message "${message.id}" was already sent`);
    }
    await store.saveUserMessage(chatId, message);
    if (history.length === 0) await store.setTitleFromFirstMessage(chatId, messageText(message));
    return { history: [...history, message], answerId: randomUUID() };
  }
  if (body.trigger === 'approval-response') {
    // The answer continues the message that asked: same id, the approved tools run first.
    const asked = history.at(-1);
    const answered = await applyApprovals(asked, body.approvals ?? [], approvalCtx());
    // Conditional: of two answers read from the same stored answer, only the first is kept.
    if (!(await store.replaceMessageIfUnchanged(chatId, answered, asked!.parts))) {
      throw new AppError('conflict:approval', 'This approval was already answered');
    }
    return { history: [...history.slice(0, -1), answered], answerId: answered.id };
  }
  const lastUser = history.findLastIndex((m) => m.role === 'user');
  if (lastUser < 0) throw new AppError('bad_request:chat', 'There is no message to answer again');
  // Issue 13: the previous answer is kept as a version, not deleted.
  await store.replaceTail(chatId, history[lastUser]!.id, null);
  return { history: history.slice(0, lastUser + 1), answerId: randomUUID() };
}

export async function runChatTurn(body: ChatRequestBody, deps: TurnDeps): Promise<Response> {
  const { chatId } = body;
  const chat = await deps.store.getChat(chatId);
  if (!chat) throw new AppError('not_found:chat', `Chat "${chatId}" does not exist`);
  // Claimed before the next await: a second request for this chat is refused until this turn ends.
  const turn = claimTurn(chatId);
  try {
    // Then the lease shared by every instance (docs/TEAM-SERVER.md, "Two instances"): a live turn elsewhere is a 409.
    const leases = deps.store.leases;
    if (leases) {
      if (!(await leases.acquire(chatId, () => turn.controller.abort()))) {
        throw new AppError('conflict:chat', 'This chat is still answering; stop it or wait for the answer to end');
      }
      turn.beforeRelease = () => leases.release(chatId);
    }
    return await startTurn(body, deps, turn);
  } catch (error) {
    turn.release();
    throw error;
  }
}

async function startTurn(body: ChatRequestBody, deps: TurnDeps, turn: ActiveTurn): Promise<Response> {
  const { store, config } = deps;
  const { chatId } = body;

  const stored = await store.getMessages(chatId);
  const firstExchange = body.trigger === 'submit-message' && stored.length === 0;
  const firstUser = stored.find((m) => m.role === 'user') ?? body.message;
  const view = await buildSkillView({
    source: { ...deps.skills, access: deps.access.resolveAll(deps.skills.skills, deps.personal) },
    config,
    contextWindow: deps.model.contextWindow,
    chatId,
    relevanceText: firstUser ? messageText(firstUser) : '',
  });
  const skills = view.usable;
  const activated = new Set(await store.getActivatedNames(chatId));
  const display = { appDir: config.appDir, home: config.home };
  let explicitSkills: string[] = [];
  // The MCP servers connected at this moment: one that is down or slow is left out, never waited for.
  const mcp = deps.mcp
    ? mcpTurnTools(deps.mcp, { switchedOff: deps.personal?.switchedOff, signal: turn.controller.signal })
    : null;
  const approvalContext = (): ApprovalContext => ({
    chatId,
    skills,
    access: deps.access,
    store,
    display,
    activated,
    explicitSkills,
    shell: deps.shell,
    mcp,
  });

  const { history, answerId } = await prepareHistory(body, stored, deps, approvalContext);
  const continuing = body.trigger === 'approval-response';
  const lastUserText = messageText(history.findLast((m) => m.role === 'user') ?? { parts: [] });
  const invocation = continuing ? null : parseInvocations(lastUserText, (name) => view.all.has(name));
  explicitSkills = invocation?.names ?? [];
  const refusal =
    (invocation?.names ?? []).map((name) => refusalOf(view.access.get(name)!, 'explicit')).find((r) => r !== null) ??
    null;
  const catalog = view.catalog?.catalog ?? null;

  const assistantId = answerId;
  // A refused or bare `/name` is answered by the server: the person asked for the skill, not for a reply.
  const serverAnswers = invocation !== null && (refusal !== null || !invocation.rest);
  const metadata: ChatMessage['metadata'] = serverAnswers
    ? { model: 'skillchat', createdAt: Date.now() }
    : { model: deps.model.label, createdAt: Date.now(), ...(deps.model.note ? { modelNote: deps.model.note } : {}) };
  await store.startAssistantMessage(chatId, assistantId, metadata);
  await store.leases?.setMessage(chatId, assistantId);

  const { controller } = turn;
  let writerRef: UIMessageStreamWriter<ChatMessage> | null = null;
  const ctx: SkillToolContext = {
    skills,
    access: view.access,
    activationEnum: view.activationEnum,
    search: view.catalog && view.catalog.omitted > 0 ? { matcher: view.matcher } : null,
    activated,
    limits: config.limits,
    display,
    explicitSkills,
    explicitArguments: invocation?.rest,
    onActivated: async (name: string, how: ActivationHow) => {
      await store.recordActivation(chatId, name, how);
      writerRef?.write({ type: 'data-activations', data: { names: [...activated].sort() } });
    },
    onScriptRun: (run) => store.recordScriptRun({ chatId, ...run }),
    signal: controller.signal,
    // Scripts run in this chat's workspace (issue 10).
    chatId,
    scripts: config.scripts,
    shell: deps.shell,
    owner: deps.owner,
  };
  // The model is told the workspace's files each turn (names, sizes, types); last, so the cached prefix holds.
  const workspaceLine = await workspaceFilesLine(config, chatId);
  // Skills activated on earlier turns keep their instructions in the model's input (Regenerate included).
  const skillContent = await renderActiveSkills([...activated], skills, {
    maxBytes: config.limits.maxResourceBytes,
    display,
  });

  const stream = createUIMessageStream<ChatMessage>({
    originalMessages: history,
    generateId: () => assistantId,
    execute: async ({ writer }) => {
      writerRef = writer;
      if (invocation && serverAnswers) {
        await answerInvocation(writer, {
          messageId: assistantId,
          metadata,
          names: invocation.names,
          activate: (name) => {
            const refused = refusalOf(view.access.get(name)!, 'explicit');
            return refused ? Promise.reject(new SkillToolError(refused)) : activateSkill(ctx, name, 'explicit');
          },
        });
        return;
      }

      const forModel = await withAttachedDocuments(
        invocation
          ? history.map((m, i) =>
              i === history.length - 1 ? { ...m, parts: [{ type: 'text' as const, text: invocation.rest }] } : m,
            )
          : history,
        deps,
        chatId,
        controller.signal,
      );
      const skillTools = createSkillTools(ctx);
      // MCP tools are dynamic (their names and schemas come from the servers): the static type stays the skill tools'.
      const tools = mcp && mcp.names.length > 0 ? ({ ...skillTools, ...mcp.tools } as SkillTools) : skillTools;
      const converted = await convertToModelMessages(forModel, { tools, ignoreIncompleteToolCalls: true });
      const baseInstructions = (explicitSkill?: string, summary?: string) =>
        buildInstructions({ catalog, activatedNames: [...activated].sort(), explicitSkill, skillContent, summary }) +
        workspaceLine;
      // A long chat: the oldest turns leave the model's input (the skills' instructions stay, above) and the
      // answer carries a marker the chat shows as a divider.
      // A real model summarises them instead, and the summary goes before the skills' instructions.
      const realModel = isRealModel(deps.model);
      const compaction = await compactConversation({
        history: forModel,
        converted,
        contextWindow: deps.model.contextWindow,
        // Only a known context window is budgeted (compaction does nothing without one): counting the system
        // prompt, catalog included, was ~1 ms of every offline turn with 10 skills and more with 10,000.
        reservedTokens: deps.model.contextWindow ? countTokens(baseInstructions()) : 0,
        summarise: realModel
          ? (input) =>
              summariseMessages(
                deps.model.model,
                { ...input, contextWindow: deps.model.contextWindow ?? 0 },
                controller.signal,
              )
          : null,
        onError: (error) => {
          const reason = error instanceof Error ? error.message : String(error);
          console.warn(`[skillchat] no summary (earlier messages left out instead): ${reason.slice(0, 200)}`);
        },
      });
      const { messages, dropped } = compaction;
      if (dropped > 0) writer.write({ type: 'data-compaction', data: compactionData(compaction) });
      const summary = compaction.summary?.summary;
      const instructionsFor = (explicitSkill?: string) =>
        baseInstructions(explicitSkill, summary) + (dropped > 0 && !summary ? compactionNote(dropped) : '');
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
          const activeTools = [...(skillTools ? await offeredTools(ctx) : []), ...((mcp?.names ?? []) as ToolName[])];
          if (!invocation || !catalog) return { activeTools };
          // Force one activation per invoked skill on the first steps only: a top-level toolChoice would loop.
          const forced = invocation.names[stepNumber];
          if (forced) {
            return {
              activeTools,
              toolChoice: { type: 'tool', toolName: TOOL_ACTIVATE },
              instructions: instructionsFor(forced),
            };
          }
          if (stepNumber === invocation.names.length) return { activeTools, instructions: instructionsFor() };
          return { activeTools };
        },
      });
      const answer: ReadableStream<InferUIMessageChunk<ChatMessage>> = toUIMessageStream({
        stream: result.stream,
        tools,
        redactToolErrors: false,
        messageMetadata: ({ part }) => (part.type === 'start' ? metadata : undefined),
        onError: safeErrorMessage,
      });
      // After the first exchange a real model names the chat, unless a person already did (then the title is not
      // the one derived from the first message any more).
      const question = messageText(history.at(-1)!);
      writer.merge(
        firstExchange && realModel
          ? titleAfterAnswer(answer, {
              model: deps.model.model,
              question,
              signal: controller.signal,
              save: (title) => store.renameChatIfTitle(chatId, deriveTitle(question), title),
            })
          : answer,
      );
    },
    onError: safeErrorMessage,
    onEnd: async ({ responseMessage, isAborted, outcome }) => {
      try {
        const failed = outcome.status === 'failed';
        const shutdown = isAborted && controller.signal.reason === SHUTDOWN_REASON;
        await store.finishAssistantMessage(assistantId, {
          parts: responseMessage.parts,
          // The model's label and the answer's time, so a reloaded chat and its export show them.
          metadata: responseMessage.metadata,
          status: shutdown ? 'interrupted' : isAborted ? 'aborted' : failed ? 'error' : 'complete',
          error: failed ? safeErrorMessage('error' in outcome ? outcome.error : 'unknown error') : undefined,
        });
      } catch (error) {
        console.error('[skillchat] could not store the finished answer', error);
      } finally {
        turn.release();
      }
    },
  });

  // One copy is stored as it streams (a hard kill loses at most about a second), one goes to the browser.
  let toBrowser = stream;
  if (deps.incremental !== false) {
    const [browser, toStore] = stream.tee();
    toBrowser = browser;
    void persistAsItStreams({
      chunks: toStore,
      continuing: continuing ? history.at(-1) : undefined,
      save: (parts) => store.saveAnswerProgress(assistantId, parts),
    });
  }
  return createUIMessageStreamResponse({
    stream: toBrowser,
    // The SSE copy is drained on the server, so the answer is finished and stored even when the browser goes
    // away, and recorded, so a reload or a second tab can follow it (GET /api/chats/:id/stream).
    consumeSseStream: ({ stream: copy }) => resumableStreams().publish(chatId, copy),
  });
}
