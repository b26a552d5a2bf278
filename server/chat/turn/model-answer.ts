/**
 * The model's answer: the history with attached documents, compacted to fit the model's window (a real model
 * summarises what is left out), `streamText` with the skill tools, their consent and a step limit, and after a
 * real model's first answer a title for the chat.
 */
import {
  convertToModelMessages,
  type InferUIMessageChunk,
  isStepCount,
  streamText,
  toUIMessageStream,
  type UIMessageStreamWriter,
} from 'ai';
import { readDocument } from '../../documents/extract';
import { readPdfFile } from '../../documents/pdf-file';
import { readsPdfFiles } from '../../model/file-parts';
import { compactionNote, noSandboxLine, workspaceFilesLine } from '../../prompt/appended-lines';
import { buildInstructions } from '../../prompt/instructions';
import type { ExecutionConfig, ShellMode } from '../../sandbox/config';
import { sandboxReady } from '../../sandbox/run';
import { countTokens } from '../../skills/catalog/catalog';
import { createTurnTools, offeredTools, type SkillToolContext, type TurnTools } from '../../tools';
import { TOOL_ACTIVATE, type ToolName } from '../../tools/names';
import { listWorkspace } from '../../workspace/workspace';
import { createToolApproval } from '../approvals';
import { attachDocuments } from '../attached-documents';
import { type ConversationCompaction, compactConversation } from '../compaction';
import { titleAfterAnswer } from '../generated-title';
import { messageText, titleOf } from '../request';
import { renderActiveSkills } from '../skill-content';
import { summariseMessages } from '../summary';
import type { ChatDataParts, ChatMessage } from '../wire-types';
import { type Answer, approvalContext, type TurnContext } from './context';
import { isRealModel } from './deps';
import { safeErrorMessage } from './finish';

/** Steps per turn: activation, a few resource reads, the answer. */
export const MAX_STEPS = 8;

/** What the instructions carry besides the catalog, read before the answer starts. */
export interface PromptParts {
  /** The `workspace_files` line, or nothing for a chat without files. */
  workspaceLine: string;
  /** Skills activated on earlier turns keep their instructions in the model's input (Regenerate included). */
  skillContent: string;
}

export async function readPromptParts(turn: TurnContext): Promise<PromptParts> {
  const { config } = turn.deps;
  // The model is told the workspace's files each turn (names, sizes, types); last, so the cached prefix holds.
  const workspaceLine = config.execution
    ? workspaceFilesLine(await listWorkspace(config.execution.workspace.dir, turn.chatId)) +
      (await sandboxLine(config.execution, turn.deps.shell))
    : '';
  const skillContent = await renderActiveSkills([...turn.activated], turn.view.usable, {
    maxBytes: config.limits.maxResourceBytes,
    display: turn.display,
  });
  return { workspaceLine, skillContent };
}

/** The `code_cannot_run` line when the person may use the shell and no sandbox runs here (probed once per process). */
async function sandboxLine(execution: ExecutionConfig, shell: ShellMode | undefined): Promise<string> {
  if ((shell ?? 'off') === 'off') return '';
  const ready = await sandboxReady(execution);
  return ready.ok ? '' : noSandboxLine(ready.reason);
}

export async function streamAnswer(
  writer: UIMessageStreamWriter<ChatMessage>,
  input: { turn: TurnContext; answer: Answer; prompt: PromptParts; tools: SkillToolContext },
): Promise<void> {
  const { turn, answer, prompt, tools: ctx } = input;
  const { deps, invocation, activated, chatId } = turn;
  const { history } = answer;
  const signal = turn.slot.controller.signal;
  const catalog = turn.view.catalog?.catalog ?? null;

  const forModel = await withAttachedDocuments(
    invocation
      ? history.map((m, i) =>
          i === history.length - 1 ? { ...m, parts: [{ type: 'text' as const, text: invocation.rest }] } : m,
        )
      : history,
    turn,
  );
  const builtIn = createTurnTools(ctx);
  // MCP tools are dynamic (their names and schemas come from the servers): the static type stays the built-in tools'.
  const mcp = turn.mcp;
  const tools = mcp && mcp.names.length > 0 ? ({ ...builtIn, ...mcp.tools } as TurnTools) : builtIn;
  const converted = await convertToModelMessages(forModel, { tools, ignoreIncompleteToolCalls: true });
  const baseInstructions = (explicitSkill?: string, summary?: string) =>
    buildInstructions({
      catalog,
      activatedNames: [...activated].sort(),
      explicitSkill,
      skillContent: prompt.skillContent,
      summary,
    }) + prompt.workspaceLine;
  // A long chat: the oldest turns leave the model's input (the skills' instructions stay, above) and the
  // answer carries a marker the chat shows as a divider.
  // A real model summarises them instead, and the summary goes before the skills' instructions.
  const realModel = isRealModel(deps.model);
  const compaction = await compactConversation({
    history: forModel,
    converted,
    contextWindow: deps.model.contextWindow,
    // Only a known context window is budgeted (compaction does nothing without one): counting the system
    // prompt, catalog included, costs every turn time that grows with the catalog.
    reservedTokens: deps.model.contextWindow ? countTokens(baseInstructions()) : 0,
    summarise: realModel
      ? (summaryInput) =>
          summariseMessages(deps.model.model, { ...summaryInput, contextWindow: deps.model.contextWindow ?? 0 }, signal)
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
    abortSignal: signal,
    toolApproval: createToolApproval(approvalContext(turn)),
    prepareStep: async ({ stepNumber }) => {
      // Each tool's declaration says when it is offered (the script tool: while an active skill has scripts).
      const activeTools = [...(builtIn ? await offeredTools(ctx) : []), ...((mcp?.names ?? []) as ToolName[])];
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
  const stream: ReadableStream<InferUIMessageChunk<ChatMessage>> = toUIMessageStream({
    stream: result.stream,
    tools,
    redactToolErrors: false,
    messageMetadata: ({ part }) => (part.type === 'start' ? answer.metadata : undefined),
    onError: safeErrorMessage,
  });
  // After the first exchange a real model names the chat, unless a person already did (then the title is not
  // the one derived from the first message any more).
  const question = messageText(history.at(-1)!);
  writer.merge(
    turn.firstExchange && realModel
      ? titleAfterAnswer(stream, {
          model: deps.model.model,
          question,
          signal,
          save: (title) => deps.store.renameChatIfTitle(chatId, titleOf(history.at(-1)!), title),
        })
      : stream,
  );
}

/**
 * The documents attached to the person's messages, as text before their words (attached-documents.ts), read in the
 * sandbox once per file; PDFs whole as file parts for a model that reads them (`model/file-parts.ts`). Not for the offline model: it takes the last message's text as the person's commands and
 * paths, and a document's text must not become those.
 */
async function withAttachedDocuments(messages: ChatMessage[], turn: TurnContext): Promise<ChatMessage[]> {
  const { deps, chatId } = turn;
  const execution = deps.config.execution;
  if (!execution) return messages;
  return attachDocuments(messages, {
    read: (name) => readDocument(execution, chatId, name, { signal: turn.slot.controller.signal, owner: deps.owner }),
    ...(readsPdfFiles(deps.model.provider)
      ? { pdfFile: (name: string) => readPdfFile(execution.workspace.dir, chatId, name) }
      : {}),
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
