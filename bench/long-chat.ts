/**
 * A long chat: 2,000 messages (`test/long-chat.ts`: realistic sizes, a shell run in every eighth answer)
 * written into a fresh database, then `next start` on the production build. Measured: the chat page's HTML (bytes,
 * and the server's time for it), the first contentful paint in real Chromium (/usr/bin/chromium, a fresh context
 * per round), an older page from `GET /api/chats/:id/messages`, and the whole chat (`GET /api/chats/:id`, what the
 * page used to carry) for comparison. Needs a build (`npm run build`); skipped without one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { closeDb, openDb, sqliteDatabase } from '../server/db';
import { longChatMessageId, seedLongChat } from '../test/long-chat';
import { freePort, SERVER_ENV, spawnBuiltServer } from './server-start';

const CHAT = 'bench-long-chat';
/** The floor: the same page for a chat of two messages, measured in the same rounds (the machine's load included). */
const SHORT = 'bench-short-chat';

export interface LongChatFigures {
  messages: number;
  seedMs: number;
  htmlBytes: number;
  htmlMsP50: number;
  fcpMsP50: number;
  fcpMsMax: number;
  shortFcpMsP50: number;
  shortHtmlMsP50: number;
  shownMessages: number;
  olderPageMsP50: number;
  olderPageBytes: number;
  wholeChatBytes: number;
  wholeChatMs: number;
}

/**
 * The first contentful paint's time, waiting for it if need be. A string, not a function: tsx would wrap a function
 * in helpers (`__name`) the page does not have.
 */
const FIRST_PAINT = `new Promise((resolve) => {
  const read = () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime;
  if (read() !== undefined) return resolve(read());
  new PerformanceObserver(() => read() !== undefined && resolve(read())).observe({ type: 'paint', buffered: true });
})`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

export async function benchLongChat(options: {
  workDir: string;
  messages: number;
  rounds: number;
  chromiumPath?: string;
}): Promise<LongChatFigures> {
  const dir = path.join(options.workDir, 'long-chat');
  fs.mkdirSync(path.join(dir, 'home'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'skills'), { recursive: true });
  const dbPath = path.join(dir, 'long-chat.db');
  const d = sqliteDatabase(openDb(dbPath));
  const seed = await timed(() => seedLongChat(d, { chatId: CHAT, count: options.messages, interrupted: true }));
  await seedLongChat(d, { chatId: SHORT, count: 2 });
  closeDb(d);

  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child = spawnBuiltServer(port, {
    ...SERVER_ENV,
    OPENAI_API_KEY: '',
    SKILLCHAT_SKILL_ROOTS: path.join(dir, 'skills'),
    SKILLCHAT_DB: dbPath,
    SKILLCHAT_HOME: path.join(dir, 'home'),
    SKILLCHAT_WATCH: '0',
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const browser = await chromium.launch({
    executablePath: options.chromiumPath ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  try {
    const deadline = performance.now() + 120_000;
    for (;;) {
      if (performance.now() > deadline) throw new Error(`server did not answer within 120 s: ${output.slice(-1000)}`);
      const ok = await fetch(`${origin}/api/status`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const page = `${origin}/chat/${CHAT}`;
    // Warm-up: the first request of a route compiles nothing in production, but loads its modules.
    await (await fetch(page)).text();

    const html: number[] = [];
    const shortHtml: number[] = [];
    let htmlBytes = 0;
    for (let i = 0; i < options.rounds; i++) {
      const { ms, value } = await timed(async () => (await fetch(page)).arrayBuffer());
      html.push(ms);
      htmlBytes = value.byteLength;
      shortHtml.push((await timed(async () => (await fetch(`${origin}/chat/${SHORT}`)).arrayBuffer())).ms);
    }

    const firstPaint = async (url: string) => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 820 } });
      const tab = await context.newPage();
      await tab.goto(url, { waitUntil: 'load' });
      const paint = (await tab.evaluate(FIRST_PAINT)) as number;
      const shown = await tab.locator('[data-message-id]').count();
      await context.close();
      return { paint, shown };
    };
    const fcp: number[] = [];
    const shortFcp: number[] = [];
    let shownMessages = 0;
    for (let i = 0; i < options.rounds; i++) {
      const long = await firstPaint(page);
      fcp.push(long.paint);
      shownMessages = long.shown;
      shortFcp.push((await firstPaint(`${origin}/chat/${SHORT}`)).paint);
    }

    const newest = (await (await fetch(`${origin}/api/chats/${CHAT}/messages`)).json()) as {
      messages: { id: string }[];
    };
    const before = newest.messages[0]?.id ?? longChatMessageId(CHAT, options.messages);
    const older: number[] = [];
    let olderPageBytes = 0;
    for (let i = 0; i < options.rounds; i++) {
      const { ms, value } = await timed(async () =>
        (await fetch(`${origin}/api/chats/${CHAT}/messages?before=${encodeURIComponent(before)}`)).arrayBuffer(),
      );
      older.push(ms);
      olderPageBytes = value.byteLength;
    }
    const whole = await timed(async () => (await fetch(`${origin}/api/chats/${CHAT}`)).arrayBuffer());

    return {
      messages: options.messages,
      seedMs: seed.ms,
      htmlBytes,
      htmlMsP50: median(html),
      fcpMsP50: median(fcp),
      fcpMsMax: Math.max(...fcp),
      shortFcpMsP50: median(shortFcp),
      shortHtmlMsP50: median(shortHtml),
      shownMessages,
      olderPageMsP50: median(older),
      olderPageBytes,
      wholeChatBytes: whole.value.byteLength,
      wholeChatMs: whole.ms,
    };
  } finally {
    await browser.close();
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
}
