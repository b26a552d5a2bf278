/**
 * A built server under load, per skill count (`next start` on the production build, one server per skill tree, all
 * answering with one fixed answer from a stand-in OpenAI-compatible endpoint this process serves, so the model says
 * the same whatever the skills):
 *
 *   start -> first scan logged -> first GET /api/skills -> first chat turn (each server started three times: the
 *   medians) -> RSS idle -> 20 more turns and 20 page loads (a chat page, then the slash menu's GET /api/skills) ->
 *   RSS after load -> rounds of 20 concurrent POST /api/chat, time to the first text chunk
 *
 * The servers run side by side and their rounds interleave (no skills, 10, 10,000, no skills, ...), so a busy
 * moment of the machine falls on all of them. With `heapDir`, each server can write a heap snapshot there on
 * SIGUSR2 (`--heapsnapshot-signal`), taken after the load; `heapSummary` sums one by constructor.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { chunkText } from '../server/offline-model/model';
import { FIXED_ANSWER } from './chat';
import { freePort, SERVER_ENV, spawnBuiltServer, treeRssMB } from './server-start';

export interface ServerLoadFigures {
  skills: number;
  /** From spawn to the first scan's log line. */
  scanMs: number;
  /** RSS of the server's process tree once the scan is done and the first requests answered, before the load. */
  idleRssMB: number;
  /** The first GET /api/skills after the scan (the whole response), median over the starts. */
  firstSkillsMs: number;
  /** The first POST /api/chat after it (request to the end of the stream), median over the starts. */
  firstTurnMs: number;
  /** RSS after the first turn, 20 more turns and 20 page loads. */
  loadedRssMB: number;
  /** Time to the answer's first text chunk at `concurrency` chats at once, p50 and p99 over the rounds. */
  ttftP50: number;
  ttftP99: number;
  concurrency: number;
  /** The heap snapshot written after the load, when asked for. */
  heapSnapshot?: string;
}

const MODEL = 'fixed-answer';
const GREETING = 'Hello there, how is your day going?';

/** An OpenAI-compatible endpoint that lists one model and streams `FIXED_ANSWER` to every chat completion. */
async function fixedAnswerEndpoint(): Promise<{ baseURL: string; close: () => Promise<void> }> {
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-bench',
      object: 'chat.completion.chunk',
      created: 0,
      model: MODEL,
      choices: [{ index: 0, delta, finish_reason: finish }],
    })}\n\n`;
  const sse = [
    chunk({ role: 'assistant', content: '' }, null),
    ...chunkText(FIXED_ANSWER).map((content) => chunk({ content }, null)),
    chunk({}, 'stop'),
    'data: [DONE]\n\n',
  ].join('');
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (d) => {
      body += d;
    });
    request.on('end', () => {
      if (request.url?.endsWith('/models')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ object: 'list', data: [{ id: MODEL, object: 'model' }] }));
        return;
      }
      if ((JSON.parse(body || '{}') as { stream?: boolean }).stream) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(sse);
        return;
      }
      // The chat's title, asked once after its first exchange.
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: 'chatcmpl-title',
          object: 'chat.completion',
          created: 0,
          model: MODEL,
          choices: [{ index: 0, message: { role: 'assistant', content: 'Bench chat' }, finish_reason: 'stop' }],
        }),
      );
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface Running {
  skills: number;
  origin: string;
  child: ChildProcess;
  scanMs: number;
  heapDir?: string;
}

async function startServer(
  root: string,
  skills: number,
  workDir: string,
  baseURL: string,
  heapDir?: string,
): Promise<Running> {
  const port = await freePort();
  const home = path.join(workDir, 'home');
  fs.mkdirSync(home, { recursive: true });
  const started = performance.now();
  const child = spawnBuiltServer(port, {
    ...SERVER_ENV,
    ...(heapDir ? { NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${heapDir}` } : {}),
    SKILLCHAT_SKILL_ROOTS: root,
    SKILLCHAT_DB: path.join(workDir, 'server.db'),
    SKILLCHAT_HOME: home,
    SKILLCHAT_HOST: '127.0.0.1',
    SKILLCHAT_OLLAMA: 'off',
    OPENAI_BASE_URL: baseURL,
    OPENAI_MODEL: MODEL,
  });
  let out = '';
  const scanned = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no scan logged in 180 s: ${out.slice(-2000)}`)), 180_000);
    const collect = (d: Buffer) => {
      out += d;
      if (/\[skillchat\] \d+ skills .* scanned in/.test(out)) {
        clearTimeout(timer);
        resolve(performance.now() - started);
      }
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}): ${out.slice(-2000)}`));
    });
  });
  const scanMs = await scanned;
  return { skills, origin: `http://127.0.0.1:${port}`, child, scanMs, heapDir };
}

function stop(server: Running): void {
  try {
    process.kill(-server.child.pid!, 'SIGTERM');
  } catch {
    /* already gone */
  }
}

async function timedGet(origin: string, pathname: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${origin}${pathname}`, { redirect: 'manual' });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`GET ${pathname}: ${response.status}`);
  return performance.now() - started;
}

let chatSeq = 0;

/** One turn of a new chat (created first): ms to the first text chunk and to the end of the stream, and the chat's id. */
async function turn(origin: string): Promise<{ chatId: string; firstText: number; total: number }> {
  const chatId = `bench-${process.pid}-${++chatSeq}`;
  // The new-chat screen creates the chat before its first message: not part of the turn.
  const created = await fetch(`${origin}/api/chats`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ id: chatId }),
  });
  if (created.status !== 201) throw new Error(`POST /api/chats: ${created.status} ${await created.text()}`);
  const started = performance.now();
  const response = await fetch(`${origin}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({
      chatId,
      trigger: 'submit-message',
      message: { id: `${chatId}-u`, role: 'user', parts: [{ type: 'text', text: GREETING }] },
    }),
  });
  if (response.status !== 200) throw new Error(`POST /api/chat: ${response.status} ${await response.text()}`);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let firstText = Number.NaN;
  let seen = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (Number.isNaN(firstText)) {
      seen += decoder.decode(value, { stream: true });
      if (seen.includes('"type":"text-delta"')) firstText = performance.now() - started;
    }
  }
  if (Number.isNaN(firstText)) throw new Error(`no text in the answer: ${seen.slice(0, 500)}`);
  return { chatId, firstText, total: performance.now() - started };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function writeHeapSnapshot(server: Running): Promise<string | undefined> {
  if (!server.heapDir) return undefined;
  const before = new Set(fs.readdirSync(server.heapDir));
  // `next start` serves in its own process (it renames itself `next-server`).
  process.kill(server.child.pid!, 'SIGUSR2');
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    await settle(500);
    const written = fs.readdirSync(server.heapDir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    if (written) {
      const file = path.join(server.heapDir, written);
      // Written when its size stops changing.
      let size = -1;
      while (size !== fs.statSync(file).size) {
        size = fs.statSync(file).size;
        await settle(1000);
      }
      return file;
    }
  }
  return undefined;
}

export interface ServerLoadOptions {
  /** The skill trees, each with its skill count (0 for an empty folder: the floor). */
  trees: ReadonlyArray<{ skills: number; root: string }>;
  workDir: string;
  /** Starts of each server whose first requests are timed (the medians are reported); the last is loaded. */
  starts: number;
  /** Turns and page loads before the loaded RSS is read (after the first turn). */
  turns: number;
  concurrency: number;
  rounds: number;
  /** Where servers write a heap snapshot after the load; none without it. */
  heapDir?: string;
}

export async function benchServerLoad(options: ServerLoadOptions): Promise<ServerLoadFigures[]> {
  const endpoint = await fixedAnswerEndpoint();
  let servers: Running[] = [];
  const startAll = async (run: number, last: boolean) => {
    servers = [];
    // One at a time: a 10,000-skill scan must not share the start-up of the others.
    for (const { skills, root } of options.trees) {
      const dir = path.join(options.workDir, `server-load-${skills}-${run}`);
      const heapDir = last && options.heapDir ? path.join(options.heapDir, String(skills)) : undefined;
      if (heapDir) fs.mkdirSync(heapDir, { recursive: true });
      servers.push(await startServer(root, skills, dir, endpoint.baseURL, heapDir));
    }
  };
  try {
    // A first request is one sample per start, and on a busy machine one sample says little: each server is started
    // `starts` times, and the first requests are the medians.
    const firsts = new Map<number, { skillsMs: number[]; turnMs: number[] }>();
    for (let run = 0; run < options.starts; run++) {
      const last = run === options.starts - 1;
      await startAll(run, last);
      for (const server of servers) {
        const first = firsts.get(server.skills) ?? { skillsMs: [], turnMs: [] };
        firsts.set(server.skills, first);
        first.skillsMs.push(await timedGet(server.origin, '/api/skills'));
        first.turnMs.push((await turn(server.origin)).total);
      }
      if (!last) for (const server of servers) stop(server);
    }
    const figures = new Map<Running, ServerLoadFigures>();
    for (const server of servers) {
      await settle(1000);
      const idleRssMB = treeRssMB(server.child.pid!);
      const chats: string[] = [];
      for (let i = 0; i < options.turns; i++) chats.push((await turn(server.origin)).chatId);
      for (let i = 0; i < options.turns; i++) {
        await timedGet(server.origin, `/chat/${chats[i % chats.length]}`);
        await timedGet(server.origin, '/api/skills');
      }
      await settle(2000);
      const first = firsts.get(server.skills)!;
      figures.set(server, {
        skills: server.skills,
        scanMs: server.scanMs,
        idleRssMB,
        firstSkillsMs: percentile(first.skillsMs, 50),
        firstTurnMs: percentile(first.turnMs, 50),
        loadedRssMB: treeRssMB(server.child.pid!),
        ttftP50: Number.NaN,
        ttftP99: Number.NaN,
        concurrency: options.concurrency,
        heapSnapshot: await writeHeapSnapshot(server),
      });
    }
    const samples = new Map<Running, number[]>(servers.map((s) => [s, []]));
    for (let round = -1; round < options.rounds; round++) {
      for (const server of servers) {
        const results = await Promise.all(Array.from({ length: options.concurrency }, () => turn(server.origin)));
        if (round >= 0) samples.get(server)!.push(...results.map((r) => r.firstText));
      }
    }
    return servers.map((server) => {
      const ttft = samples.get(server)!;
      return { ...figures.get(server)!, ttftP50: percentile(ttft, 50), ttftP99: percentile(ttft, 99) };
    });
  } finally {
    for (const server of servers) stop(server);
    await endpoint.close();
  }
}

/** A heap snapshot's self sizes summed by node type and constructor: the `top` largest, in MB. */
export function heapSummary(file: string, top = 12): Array<{ what: string; count: number; mb: number }> {
  const snapshot = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const by = new Map<string, { count: number; bytes: number }>();
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    const type = types[snapshot.nodes[i + typeAt]!]!;
    const named = type === 'object' || type === 'closure' || type === 'native';
    const what = named ? `${type} ${snapshot.strings[snapshot.nodes[i + nameAt]!]!.slice(0, 50)}` : type;
    const entry = by.get(what) ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += snapshot.nodes[i + sizeAt]!;
    by.set(what, entry);
  }
  return [...by]
    .map(([what, { count, bytes }]) => ({ what, count, mb: bytes / 1e6 }))
    .sort((a, b) => b.mb - a.mb)
    .slice(0, top);
}
