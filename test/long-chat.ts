/**
 * For the e2e spec and the bench: a long chat written straight into a database, through the same message
 * query the turn uses. Messages have realistic sizes (questions of a line or three; answers of a few paragraphs with
 * lists and code; every eighth answer ran a shell command and carries its tool part), the same on every run.
 * The last answer can be left `interrupted`, as a restart leaves one, so Continue is offered.
 */

import type { ChatMessage } from '../server/chat/wire-types';
import { createChat, type Database, saveMessage } from '../server/db';
import { LOCAL_USER_ID } from '../server/db/local-user';

const WORDS =
  'the report table column figure budget review draft summary section quarter revenue chart slide invoice customer order total average change since last week script output file folder page line value'.split(
    ' ',
  );

/** A small deterministic generator (mulberry32), so every run writes the same chat. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sentence(random: () => number, words: number): string {
  const out = Array.from({ length: words }, () => WORDS[Math.floor(random() * WORDS.length)]!);
  return `${out.join(' ').replace(/^./, (c) => c.toUpperCase())}.`;
}

/** The text of message `n` (1-based) of the person; `marker` words make messages findable by search. */
export function questionText(n: number): string {
  return `Question ${n}: ${sentence(prng(n), 10 + (n % 30))}`;
}

function answer(n: number, id: string, random: () => number): ChatMessage['parts'] {
  const paragraphs = Array.from({ length: 2 + Math.floor(random() * 3) }, () =>
    Array.from({ length: 2 + Math.floor(random() * 3) }, () => sentence(random, 8 + Math.floor(random() * 10))).join(
      ' ',
    ),
  );
  const list = Array.from({ length: 3 }, () => `- ${sentence(random, 5)}`).join('\n');
  const code =
    n % 3 === 0
      ? `\n\n\`\`\`python\nimport csv\nrows = list(csv.reader(open('data-${n}.csv')))\nprint(len(rows))\n\`\`\``
      : '';
  const text = `Answer ${n}. ${paragraphs.join('\n\n')}\n\n${list}${code}`;
  if (n % 16 !== 0) return [{ type: 'step-start' }, { type: 'text', text, state: 'done' }];
  const stdout = Array.from({ length: 8 }, (_, i) => `row ${i}: ${sentence(random, 6)}`).join('\n');
  // The stored shape of a finished shell run (its card renders it like a live one).
  const run = {
    type: 'tool-sandbox_exec',
    toolCallId: `call-${id}`,
    state: 'output-available',
    input: { command: `python3 summarise.py data-${n}.csv` },
    output: {
      command: `python3 summarise.py data-${n}.csv`,
      state: 'done',
      exitCode: 0,
      stdout,
      stderr: '',
      durationMs: 420,
      truncated: false,
      timedOut: false,
    },
  } as unknown as ChatMessage['parts'][number];
  return [{ type: 'step-start' }, run, { type: 'step-start' }, { type: 'text', text, state: 'done' }];
}

/** Message ids of a seeded chat: `<chatId>-<n>`, 1-based, odd ones the person's. */
export function longChatMessageId(chatId: string, n: number): string {
  return `${chatId}-${n}`;
}

/**
 * Writes chat `chatId` with `count` messages (person and assistant in turn, a minute apart). The first message's
 * text is `firstText` when given (a word to search for).
 */
export async function seedLongChat(
  d: Database,
  options: {
    chatId: string;
    count: number;
    title?: string;
    firstText?: string;
    userId?: string;
    interrupted?: boolean;
  },
): Promise<void> {
  const { chatId, count } = options;
  await createChat({ id: chatId, title: options.title ?? 'A long chat', userId: options.userId ?? LOCAL_USER_ID }, d);
  const random = prng(7);
  const start = Date.UTC(2026, 10, 1, 9);
  for (let n = 1; n <= count; n++) {
    const id = longChatMessageId(chatId, n);
    const at = new Date(start + n * 60_000);
    const metadata = { createdAt: at.getTime(), ...(n % 2 === 0 ? { model: 'Offline model (built-in)' } : {}) };
    const message: ChatMessage =
      n % 2 === 1
        ? {
            id,
            role: 'user',
            parts: [{ type: 'text', text: n === 1 && options.firstText ? options.firstText : questionText(n) }],
            metadata,
          }
        : { id, role: 'assistant', parts: answer(n, id, random), metadata };
    const last = n === count && n % 2 === 0 && options.interrupted;
    await saveMessage(chatId, message, { status: last ? 'interrupted' : 'complete', at }, d);
  }
}
