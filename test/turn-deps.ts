/** Running chat turns in tests: what a turn needs with the offline model, and one turn run to its end. */
import path from 'node:path';
import { createAccessResolver } from '../server/access/resolver';
import type { ChatStore } from '../server/chat/store';
import { createRunningTurns, type RunningTurns, runChatTurn, type TurnDeps } from '../server/chat/turn';
import type { ApprovalAnswer } from '../server/chat/wire-types';
import { loadConfig } from '../server/config';
import { createOfflineModel } from '../server/offline-model/model';

const appDir = path.resolve(import.meta.dirname, '..');

/**
 * `dir` holds the config's database path and home; `chunkDelayMs` paces the answer (40 ms: a few seconds); `turns`:
 * the running turns the deps share (as the app's `app.turns`), a table of their own unless given.
 */
export function offlineTurnDeps(
  store: ChatStore,
  dir: string,
  chunkDelayMs: number,
  turns: RunningTurns = createRunningTurns(),
): TurnDeps {
  const config = loadConfig({ appDir, env: { SKILLCHAT_DB: path.join(dir, 'chat.db') }, home: path.join(dir, 'home') });
  return {
    store,
    turns,
    config,
    skills: { skills: [] },
    model: { model: createOfflineModel({ chunkDelayMs }), label: 'offline' },
    access: createAccessResolver(config),
  };
}

let sent = 0;

/**
 * One turn to its end, as the chat route runs it: the person's `text`, or their answers to approval cards. Returns
 * the chat as stored afterwards.
 */
export async function runTurnToEnd(
  chatId: string,
  body: { text?: string; approvals?: ApprovalAnswer[] },
  deps: TurnDeps,
) {
  sent += 1;
  const response = await runChatTurn(
    body.approvals
      ? { chatId, trigger: 'approval-response', approvals: body.approvals }
      : {
          chatId,
          trigger: 'submit-message',
          message: { id: `m${sent}`, role: 'user', parts: [{ type: 'text', text: body.text! }] },
        },
    deps,
  );
  await response.text();
  await deps.turns.wait(chatId);
  return (await deps.store.loadChatView(chatId))!;
}
