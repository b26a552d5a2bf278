/**
 * The chat's side of tool approval. The AI SDK marks a part `approval-responded` when the person answers and then
 * re-sends the conversation; this server takes only the answers (`trigger: 'approval-response'`), never tool parts
 * from a browser. Answers given on this page wait in `UnsentApprovals` until a request carries them, which also
 * records "Always allow" (the SDK's answer has no such field) and keeps an answer from being sent twice: a part
 * still `approval-responded` after a failed continuation is not answered again by itself.
 */
import { isToolUIPart, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import type { ApprovalAnswer, ChatMessage, ChatRequestBody } from '@/server/chat/wire-types';

export type UnsentApprovals = Map<string, ApprovalAnswer>;

/** The answers of the last assistant message that this page gave and has not sent yet, in part order. */
export function unsentAnswersOf(messages: readonly ChatMessage[], unsent: UnsentApprovals): ApprovalAnswer[] {
  const last = messages.at(-1);
  if (last?.role !== 'assistant') return [];
  return last.parts.flatMap((part) => {
    if (!isToolUIPart(part) || part.state !== 'approval-responded') return [];
    const answer = unsent.get(part.approval.id);
    return answer ? [answer] : [];
  });
}

/** For `sendAutomaticallyWhen`: every approval of the last step is answered and some answer is not sent yet. */
export function shouldSendApprovals(messages: ChatMessage[], unsent: UnsentApprovals): boolean {
  return (
    lastAssistantMessageIsCompleteWithApprovalResponses({ messages }) && unsentAnswersOf(messages, unsent).length > 0
  );
}

/**
 * The body of POST /api/chat: approval answers when the SDK continues an answered message, else only the newest
 * user message (the server holds the history). Answers are taken out of `unsent` as they are sent.
 */
export function chatRequestBody(
  request: {
    id: string;
    messages: ChatMessage[];
    trigger: 'submit-message' | 'regenerate-message';
    /** Set by `sendMessage({ messageId })`: the message edits a sent one. */
    messageId?: string;
  },
  unsent: UnsentApprovals,
): ChatRequestBody {
  const { id, messages, trigger, messageId } = request;
  if (trigger === 'regenerate-message') return { chatId: id, trigger };
  const approvals = unsentAnswersOf(messages, unsent);
  if (approvals.length > 0) {
    for (const answer of approvals) unsent.delete(answer.approvalId);
    return { chatId: id, trigger: 'approval-response', approvals };
  }
  const message = messages.at(-1);
  if (messageId && message?.id === messageId) return { chatId: id, trigger, message, messageId };
  return { chatId: id, trigger, message };
}
