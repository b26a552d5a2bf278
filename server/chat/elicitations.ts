/**
 * A server's request for the person's input during an MCP tool call, in a chat: the turn writes a `data-elicitation`
 * part (the form or the link, the call it belongs to) and the call waits; the person's answer (POST
 * /api/chats/[id]/elicitations) is checked against the form, goes back to the server, and the part is rewritten with
 * the outcome. The part is stored with the answer as it streams, and the waiting call belongs to the running turn
 * (its slot in `chat/running/active-turns.ts`), not to a browser: a reload shows the same card, still answerable.
 *
 * Unlike an approval, nothing ends the turn while it waits: the call is in flight at the server, so the answer is
 * given to the process running the turn (another instance's turn is a 409).
 */
import { randomUUID } from 'node:crypto';
import type { UIMessageStreamWriter } from 'ai';
import { z } from 'zod';
import { AppError } from '../errors';
import { checkValues, type ElicitAnswer, type ElicitationView, elicitationView } from '../mcp/elicitation';
import type { McpElicitation } from '../mcp/tools';
import type { RunningTurns } from './running/active-turns';
import type { ChatMessage, ElicitationPart } from './wire-types';

/** What the person sent: the action, and for accept the form's values. */
export interface ElicitationReply {
  action: 'accept' | 'decline' | 'cancel';
  values?: Record<string, unknown>;
}

interface Waiting {
  part: ElicitationPart;
  resolve: (answer: ElicitAnswer) => void;
}

export interface ElicitationDesk {
  /** Shows the request in the chat and waits for the person; declined at once when it cannot be shown. */
  ask(request: McpElicitation, signal: AbortSignal): Promise<ElicitAnswer>;
  /** Gives the person's reply to a waiting request; a 400 with each field's problem, a 409 when none waits. */
  reply(id: string, reply: ElicitationReply): void;
  /** The answer's stream, once it has started: parts are written there. */
  attach(writer: UIMessageStreamWriter<ChatMessage>): void;
}

/** `turnSignal`: the turn's own (Stop, shutdown); the desk listens first, so a withdrawn card is still written. */
export function createElicitationDesk(turnSignal: AbortSignal): ElicitationDesk {
  const waiting = new Map<string, Waiting>();
  let writer: UIMessageStreamWriter<ChatMessage> | null = null;
  const write = (id: string, part: ElicitationPart) => writer?.write({ type: 'data-elicitation', id, data: part });

  const settle = (id: string, status: ElicitationPart['status'], answer: ElicitAnswer) => {
    const entry = waiting.get(id);
    if (!entry) return;
    waiting.delete(id);
    write(id, { ...entry.part, status });
    entry.resolve(answer);
  };

  turnSignal.addEventListener(
    'abort',
    () => {
      for (const id of [...waiting.keys()]) settle(id, 'withdrawn', { action: 'cancel' });
    },
    { once: true },
  );

  return {
    attach(w) {
      writer = w;
    },
    ask(request, signal) {
      const view: ElicitationView | null = elicitationView(request.params);
      if (!writer || !view || signal.aborted) return Promise.resolve({ action: 'decline' });
      const id = randomUUID();
      const part: ElicitationPart = {
        toolCallId: request.toolCallId,
        server: request.server,
        tool: request.tool,
        view,
        status: 'waiting',
      };
      return new Promise<ElicitAnswer>((resolve) => {
        waiting.set(id, { part, resolve });
        write(id, part);
        // The call ended (stopped, timed out, the server gave up): the card says so and takes no answer.
        signal.addEventListener('abort', () => settle(id, 'withdrawn', { action: 'cancel' }), { once: true });
      });
    },
    reply(id, reply) {
      const entry = waiting.get(id);
      if (!entry) throw new AppError('conflict:chat', `No question "${id}" is waiting in this chat`);
      if (reply.action !== 'accept') return settle(id, reply.action, { action: reply.action });
      const { view } = entry.part;
      if (view.mode === 'url') return settle(id, 'accept', { action: 'accept' });
      const checked = checkValues(view.fields, reply.values ?? {});
      if (!checked.ok) {
        throw new AppError('bad_request:elicitation', `${Object.values(checked.problems).join('; ')}.`);
      }
      settle(id, 'accept', { action: 'accept', content: checked.content as ElicitAnswer['content'] });
    },
  };
}

const replySchema = z.strictObject({
  id: z.string().min(1).max(100),
  action: z.enum(['accept', 'decline', 'cancel']),
  values: z.record(z.string(), z.unknown()).optional(),
});

/**
 * The person's reply (`{ id, action, values? }`) to a request waiting in the chat's running turn; the route has
 * checked the chat is theirs.
 */
export function replyToElicitation(turns: Pick<RunningTurns, 'get'>, chatId: string, raw: unknown): void {
  const parsed = replySchema.safeParse(raw);
  if (!parsed.success) {
    throw new AppError('bad_request:elicitation', 'Send { id, action: accept | decline | cancel, values? }');
  }
  const { id, ...reply } = parsed.data;
  const desk = turns.get(chatId)?.elicitations;
  if (!desk) {
    throw new AppError('conflict:chat', 'Nothing is waiting for an answer in this chat; the answer may have ended');
  }
  desk.reply(id, reply);
}
