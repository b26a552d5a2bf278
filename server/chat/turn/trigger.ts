/**
 * The trigger applied to the stored history: a new message is stored (or an edited one replaces the tail, kept as a
 * version), an approval answer is applied to the answer that asked, Regenerate keeps the previous answer as a version.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../../errors';
import { applyApprovals } from '../approvals';
import { titleOf } from '../request';
import type { TurnWrites } from '../store';
import type { ChatMessage } from '../wire-types';
import { approvalContext, type TurnContext } from './context';

export interface PreparedHistory {
  /** The messages the model answers. */
  history: ChatMessage[];
  /** The id the answer is stored under. */
  answerId: string;
  /** Stores the trigger's change, with the store of the transaction that also starts the answer (`run.ts`). */
  write: (store: TurnWrites) => Promise<void>;
}

/** Applies the trigger to the stored history: the messages the model answers, and how to store the change. */
export async function prepareHistory(turn: TurnContext): Promise<PreparedHistory> {
  const { body, chatId, stored: history } = turn;
  if (body.trigger === 'submit-message') {
    // The time is the server's: a browser's clock is neither trusted nor in step with the answers' times.
    const message: ChatMessage = { ...body.message!, metadata: { ...body.message!.metadata, createdAt: Date.now() } };
    const edited = body.messageId ? history.findIndex((m) => m.id === body.messageId && m.role === 'user') : -1;
    if (edited >= 0) {
      // An edit and resend. The tail from the edited message on is kept as a version.
      const parentId = history[edited - 1]?.id ?? '';
      return {
        history: [...history.slice(0, edited), message],
        answerId: randomUUID(),
        write: (store) => store.replaceTail(chatId, parentId, message),
      };
    }
    if (history.some((m) => m.id === message.id)) {
      throw new AppError('conflict:chat', `Message "${message.id}" was already sent`);
    }
    return {
      history: [...history, message],
      answerId: randomUUID(),
      write: async (store) => {
        await store.saveUserMessage(chatId, message);
        if (history.length === 0) await store.setTitleFromFirstMessage(chatId, titleOf(message));
      },
    };
  }
  if (body.trigger === 'approval-response') {
    // The answer continues the message that asked: same id, the approved tools run first.
    const asked = history.at(-1);
    const answered = await applyApprovals(asked, body.approvals ?? [], approvalContext(turn));
    return {
      history: [...history.slice(0, -1), answered],
      answerId: answered.id,
      write: async (store) => {
        // Conditional: of two answers read from the same stored answer, only the first is kept.
        if (!(await store.replaceMessageIfUnchanged(chatId, answered, asked!.parts))) {
          throw new AppError('conflict:approval', 'This approval was already answered');
        }
      },
    };
  }
  const lastUser = history.findLastIndex((m) => m.role === 'user');
  if (lastUser < 0) throw new AppError('bad_request:chat', 'There is no message to answer again');
  // The previous answer is kept as a version, not deleted.
  const parentId = history[lastUser]!.id;
  return {
    history: history.slice(0, lastUser + 1),
    answerId: randomUUID(),
    write: (store) => store.replaceTail(chatId, parentId, null),
  };
}
