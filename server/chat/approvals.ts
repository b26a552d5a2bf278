/**
 * The one approvals path: for each tool call, how it asks (a built-in tool's declaration, or an MCP tool's rules)
 * goes to the consent service, which decides whether the card is shown; a person's answers to the cards are applied
 * to the stored answer and remembered by the same service. Nothing here knows a kind of consent: skills, MCP tools
 * and shell commands all arrive as a `ConsentAsk`.
 */
import type { ToolApprovalStatus } from 'ai';
import type { ConsentAsk } from '../consent/ask';
import { type ConsentStore, decideConsent, recordAnswer } from '../consent/service';
import type { SkillHosts } from '../egress/grants';
import { AppError } from '../errors';
import type { McpTurnTools } from '../mcp/tools';
import { type ConsentToolContext, toolConsent } from '../tools';
import type { ApprovalAnswer, ChatMessage } from './wire-types';

export interface ApprovalContext {
  chatId: string;
  /** What the built-in tools read to say how a call asks. */
  tools: ConsentToolContext;
  consent: ConsentStore;
  /** This turn's MCP tools: their rules say how each call asks (server/mcp/tools.ts). */
  mcp?: Pick<McpTurnTools, 'consent'> | null;
  /**
   * Where the declared hosts a call's consent covered are kept, by tool call id, when the call may run (approved,
   * a standing grant, or the person's Allow being checked again before it runs): its run reaches those and no more.
   */
  approvedNetwork?: Map<string, readonly SkillHosts[]>;
}

/** How this call asks for consent, from whichever tool it is; null when it asks nothing. */
function askOf(ctx: ApprovalContext, toolName: string, input: unknown): ConsentAsk | null {
  return ctx.mcp?.consent(toolName) ?? toolConsent(toolName, ctx.tools, input);
}

/** Decides, per tool call, whether the person must answer first. */
export function createToolApproval(ctx: ApprovalContext) {
  return async ({
    toolCall,
  }: {
    toolCall: { toolCallId: string; toolName: string; input: unknown };
  }): Promise<ToolApprovalStatus> => {
    const ask = askOf(ctx, toolCall.toolName, toolCall.input);
    const status = await decideConsent(ask, ctx.consent);
    // The SDK asks again, with the same call, before it runs a call the person allowed: then `user-approval` is the
    // person's Allow. A call shown a card and not yet answered does not run, so keeping its hosts grants nothing.
    const denied = status === 'denied' || (typeof status === 'object' && status.type === 'denied');
    if (ask?.network && ask.network.length > 0 && !denied) {
      ctx.approvedNetwork?.set(toolCall.toolCallId, ask.network);
    }
    return status;
  };
}

type ApprovalPart = {
  type: string;
  state: string;
  toolCallId: string;
  input?: unknown;
  approval?: { id: string; approved?: boolean; reason?: string };
};

function isApprovalPart(part: ChatMessage['parts'][number]): part is ChatMessage['parts'][number] & ApprovalPart {
  return (
    (part.type.startsWith('tool-') || part.type === 'dynamic-tool') && 'approval' in part && part.approval !== undefined
  );
}

/**
 * Applies a person's answers to the pending approvals of the stored last answer, has the consent service remember
 * them (decisions, "Always allow" grants), and returns the updated message. Unknown or already answered approvals
 * are a 409: nothing is changed.
 */
export async function applyApprovals(
  message: ChatMessage | undefined,
  answers: readonly ApprovalAnswer[],
  ctx: ApprovalContext,
): Promise<ChatMessage> {
  if (message?.role !== 'assistant') {
    throw new AppError('conflict:chat', 'There is no answer waiting for approval in this chat');
  }
  const pending = new Map(
    message.parts
      .filter(isApprovalPart)
      .filter((p) => p.state === 'approval-requested')
      .map((p) => [p.approval!.id, p]),
  );
  for (const answer of answers) {
    if (!pending.has(answer.approvalId)) {
      throw new AppError('conflict:chat', `No approval "${answer.approvalId}" is waiting in this chat`);
    }
  }
  const byId = new Map(answers.map((a) => [a.approvalId, a]));
  const parts = await Promise.all(
    message.parts.map(async (part) => {
      if (!isApprovalPart(part) || part.state !== 'approval-requested') return part;
      const answer = byId.get(part.approval!.id);
      if (!answer) return part;
      const toolName = 'toolName' in part && typeof part.toolName === 'string' ? part.toolName : part.type.slice(5);
      const ask = askOf(ctx, toolName, part.input);
      if (ask) await recordAnswer(ask, answer, ctx.chatId, ctx.consent);
      return {
        ...part,
        state: 'approval-responded',
        approval: {
          ...part.approval!,
          approved: answer.approved,
          ...(answer.approved ? {} : { reason: 'The person denied this.' }),
        },
      } as ChatMessage['parts'][number];
    }),
  );
  return { ...message, parts };
}
