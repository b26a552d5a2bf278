/**
 * One chat turn, top to bottom: claim the chat (this process's slot, then the lease shared by instances), load its
 * context, apply the trigger to the history, start the answer, then stream it: the server's own answer to a bare or
 * refused `/name`, or the model's. The answer is stored as it streams (from the events of its SSE copy) and when it
 * ends, so a closed tab does not lose it: it runs until it ends or someone stops it (`stopChat`). A new message's
 * turn commits twice, where a bare chat route commits three times: the lease with the message, the answer's start
 * and the title; the answer's end with the lease's.
 */
import { createUIMessageStream } from 'ai';
import { AppError } from '../../errors';
import type { ActiveTurn } from '../running/active-turns';
import type { TurnWrites } from '../store';
import type { ChatMessage, ChatRequestBody } from '../wire-types';
import { type Answer, firstRefusal, loadTurnContext, type TurnContext, toolContext } from './context';
import type { TurnDeps } from './deps';
import { finishAnswer, respond, safeErrorMessage } from './finish';
import { readPromptParts, streamAnswer } from './model-answer';
import { answerInvocation } from './server-answer';
import { prepareHistory } from './trigger';

export async function runChatTurn(body: ChatRequestBody, deps: TurnDeps): Promise<Response> {
  const { chatId } = body;
  const chat = deps.chat === undefined ? await deps.store.getChat(chatId) : deps.chat;
  if (!chat) throw new AppError('not_found:chat', `Chat "${chatId}" does not exist`);
  // Claimed before the next await: a second request for this chat is refused until this turn ends.
  const slot = deps.turns.claim(chatId);
  const leases = deps.store.leases;
  // Ends the lease wherever it was taken; nothing to delete when the answer's last write took it, or none was taken.
  if (leases) slot.beforeRelease = () => leases.release(chatId);
  try {
    // An approval answer runs the approved tools before its answer starts, so it holds the lease from the start, in a
    // commit of its own; any other turn writes nothing before its first transaction, which takes the lease.
    const early = body.trigger === 'approval-response';
    if (early) await takeLease(deps.store, chatId, slot);
    return await startTurn(body, deps, slot, !early);
  } catch (error) {
    slot.release();
    throw error;
  }
}

/** The lease shared by every instance (docs/TEAM-SERVER.md, "Two instances"): a live turn elsewhere is a 409. */
async function takeLease(store: TurnWrites, chatId: string, slot: ActiveTurn): Promise<void> {
  if (!(await store.takeLease(chatId, () => slot.controller.abort()))) {
    throw new AppError('conflict:chat', 'This chat is still answering; stop it or wait for the answer to end');
  }
}

async function startTurn(body: ChatRequestBody, deps: TurnDeps, slot: ActiveTurn, lease: boolean): Promise<Response> {
  const turn = await loadTurnContext(body, deps, slot);
  const { history, answerId, write } = await prepareHistory(turn);
  // A refused or bare `/name` is answered by the server: the person asked for the skill, not for a reply.
  const { invocation } = turn;
  const serverAnswers = invocation !== null && (firstRefusal(invocation) !== null || !invocation.rest);
  // The lease (unless already held), the trigger's change and the answer's `streaming` row: one transaction, one
  // durable commit; a live turn elsewhere refuses it before anything is written.
  const answer = await deps.store.transaction(async (store) => {
    if (lease) await takeLease(store, turn.chatId, slot);
    await write(store);
    return startAnswer(turn, store, { id: answerId, history, serverAnswers });
  });
  const prompt = await readPromptParts(turn);

  const stream = createUIMessageStream<ChatMessage>({
    originalMessages: history,
    generateId: () => answer.id,
    execute: async ({ writer }) => {
      turn.elicitations.attach(writer);
      const tools = toolContext(turn, writer);
      if (invocation && serverAnswers) return answerInvocation(writer, { answer, invocation, tools });
      return streamAnswer(writer, { turn, answer, prompt, tools });
    },
    onError: safeErrorMessage,
    onEnd: finishAnswer(turn, answer),
  });
  return respond(turn, answer, stream);
}

/** Stores the answer's row as `streaming`, with who answers (the model's label, or the server) in its metadata. */
async function startAnswer(
  turn: TurnContext,
  store: TurnWrites,
  input: { id: string; history: ChatMessage[]; serverAnswers: boolean },
): Promise<Answer> {
  const { deps, chatId } = turn;
  const metadata: ChatMessage['metadata'] = input.serverAnswers
    ? { model: 'skillchat', createdAt: Date.now() }
    : { model: deps.model.label, createdAt: Date.now(), ...(deps.model.note ? { modelNote: deps.model.note } : {}) };
  await store.startAssistantMessage(chatId, input.id, metadata);
  return {
    id: input.id,
    history: input.history,
    metadata,
    continuing: turn.body.trigger === 'approval-response',
  };
}
