/**
 * Chat turn latency in-process: `runChatTurn` with the offline model (no chunk delay) and a temp SQLite database,
 * against a floor: a bare AI SDK route with the same model and store and no skills (it reads the chat, stores the
 * user message, streams the answer and stores it, as any chat app must). Time to first byte and total (stream end),
 * p50 and p99, at 1 and 20 concurrent chats, and where a turn's time goes (`TurnPhases`). At 1 chat both routes run
 * once more with `fixedAnswerModel`, so the comparison can also be read without the offline model's own choices.
 * The turn is timed from what app/api/chat/route.ts does per request (server/chat/turn/deps.ts: the person's store,
 * the chat's model, the person's switched-off skills), not from `runChatTurn` alone.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { LanguageModelV4, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import {
  convertToModelMessages,
  createUIMessageStream,
  createUIMessageStreamResponse,
  streamText,
  toUIMessageStream,
} from 'ai';
import { createAccessResolver } from '../server/access/resolver';
import { createDbChatStores } from '../server/chat/db-store';
import type { ChatStore } from '../server/chat/store';
import { createRunningTurns, runChatTurn, type TurnApp, turnDeps } from '../server/chat/turn';
import type { ChatMessage } from '../server/chat/wire-types';
import { loadConfig } from '../server/config';
import { activationCountsBySkill, closeDb, openDb, sqliteDatabase, usageCounts } from '../server/db';
import { LOCAL_USER_ID } from '../server/db/local-user';
import { getLanguageModel, type LanguageModelSelection } from '../server/model/provider';
import { chunkText } from '../server/offline-model/model';
import { createMatcher } from '../server/skills/catalog/match';
import type { DiscoveryResult, Skill } from '../server/skills/types';

/** The label suffix of the turn measured with the answer stored only at its end (before incremental persistence). */
export const BEFORE_INCREMENTAL = 'stored only at the end';
/** The label suffix of the routes run with `fixedAnswerModel` (the same answer whatever the prompt). */
export const SAME_ANSWER = 'same answer';

/** What the fixed-answer model always says: a reply to the greeting, about as long as the offline model's. */
export const FIXED_ANSWER =
  "I'm the offline model built into skillchat. I can't hold a conversation, but I can help with your skills: " +
  'describe a task and I will pick one, or type / to see them all. Ask me about a skill by name to read its ' +
  'instructions and files.';

/**
 * A model that streams the same answer to every prompt, with no tool call: run on both sides, it leaves only what
 * each route itself does per turn (the offline model answers a chat with skills differently from one without).
 */
export function fixedAnswerModel(): LanguageModelV4 {
  const usage = {
    inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 0, text: 0, reasoning: undefined },
  };
  return {
    specificationVersion: 'v4',
    provider: 'bench',
    modelId: 'fixed-answer',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('fixedAnswerModel streams only')),
    doStream: async () => {
      const parts: LanguageModelV4StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 'fixed' },
        ...chunkText(FIXED_ANSWER).map((delta) => ({ type: 'text-delta' as const, id: 'fixed', delta })),
        { type: 'text-end', id: 'fixed' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
      ];
      let index = 0;
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        pull(controller) {
          const part = parts[index++];
          if (part === undefined) controller.close();
          else controller.enqueue(part);
        },
      });
      return { stream };
    },
  };
}

export interface LatencyFigures {
  name: string;
  skills: number;
  concurrency: number;
  turns: number;
  ttfbP50: number;
  ttfbP99: number;
  totalP50: number;
  totalP99: number;
  /** Where a turn's time goes: p50 ms from the request to each point, and the answer's steps and text chunks. */
  phases: TurnPhases;
}

export interface TurnPhases {
  /** The route handed back its response (the work before the stream: reads, writes, the skill view). */
  response: number;
  /** The first model step started (tools, messages and instructions prepared; the model called). */
  firstStep: number;
  /** The answer's first text chunk (after any tool steps). */
  firstText: number;
  /** The answer's `finish` chunk. */
  finish: number;
  /** The stream closed (the answer stored). */
  end: number;
  steps: number;
  textChunks: number;
}

type Timing = { ttfb: number; total: number; phases: TurnPhases };

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const CHUNK_TYPE = /"type":"([a-z-]+)"/g;

/**
 * Reads a response to the end: ms to the first chunk and to the end, from `started`, and when each phase of the
 * answer came (`responded`: when the route returned it). Every route is read the same way, so the reading's own cost
 * is the same on both sides of the comparison.
 */
async function drain(response: Response, started: number, responded: number): Promise<Timing> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let ttfb = Number.NaN;
  const phases: TurnPhases = {
    response: responded - started,
    firstStep: Number.NaN,
    firstText: Number.NaN,
    finish: Number.NaN,
    end: Number.NaN,
    steps: 0,
    textChunks: 0,
  };
  for (;;) {
    const { done, value } = await reader.read();
    const at = performance.now() - started;
    if (Number.isNaN(ttfb)) ttfb = at;
    if (done) break;
    for (const [, type] of decoder.decode(value, { stream: true }).matchAll(CHUNK_TYPE)) {
      if (type === 'start-step') {
        phases.steps++;
        if (Number.isNaN(phases.firstStep)) phases.firstStep = at;
      } else if (type === 'text-delta') {
        phases.textChunks++;
        if (Number.isNaN(phases.firstText)) phases.firstText = at;
      } else if (type === 'finish') phases.finish = at;
    }
  }
  phases.end = performance.now() - started;
  return { ttfb, total: phases.end, phases };
}

/**
 * The floor: the least any chat route with this model and this store does per turn, with no skills: read the chat,
 * store the user message, stream the model's answer, store the answer when the stream ends (then `done` resolves).
 */
async function bareRoute(
  store: ChatStore,
  model: LanguageModelSelection,
  chatId: string,
  message: ChatMessage,
): Promise<{ response: Response; done: Promise<void> }> {
  const history = [...(await store.getMessages(chatId)), message];
  await store.saveUserMessage(chatId, message);
  const assistantId = randomUUID();
  await store.startAssistantMessage(chatId, assistantId);
  let resolveDone: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve;
  });
  const stream = createUIMessageStream<ChatMessage>({
    originalMessages: history,
    generateId: () => assistantId,
    execute: async ({ writer }) => {
      const result = streamText({ model: model.model, messages: await convertToModelMessages(history) });
      writer.merge(toUIMessageStream({ stream: result.stream }));
    },
    onEnd: async ({ responseMessage }) => {
      await store.finishAssistantMessage(assistantId, { parts: responseMessage.parts, status: 'complete' });
      resolveDone();
    },
  });
  const response = createUIMessageStreamResponse({
    stream,
    consumeSseStream: async ({ stream: copy }) => {
      const reader = copy.getReader();
      while (!(await reader.read()).done) {
        /* drain, as the real route does */
      }
    },
  });
  return { response, done };
}

interface Route {
  name: string;
  skills: number;
  turn: (i: number) => Promise<Timing>;
}

/**
 * Runs the routes' rounds interleaved (floor, turn, turn, floor, ...), each round `concurrency` turns at once, after
 * `warmUp` rounds of each: run one after another, the later routes would be measured on a warmer JIT and a larger
 * database than the earlier ones, and the ratio would say as much about the order as about the routes.
 */
async function measure(
  routes: readonly Route[],
  concurrency: number,
  rounds: number,
  warmUp: number,
): Promise<LatencyFigures[]> {
  const samples = routes.map(() => ({ ttfb: [] as number[], total: [] as number[], phases: [] as TurnPhases[] }));
  let n = 0;
  for (let round = -warmUp; round < rounds; round++) {
    for (const [index, route] of routes.entries()) {
      const results = await Promise.all(Array.from({ length: concurrency }, () => route.turn(n++)));
      if (round < 0) continue;
      for (const r of results) {
        samples[index]!.ttfb.push(r.ttfb);
        samples[index]!.total.push(r.total);
        samples[index]!.phases.push(r.phases);
      }
    }
  }
  return routes.map((route, index) => {
    const { ttfb, total, phases } = samples[index]!;
    const p50 = (key: keyof TurnPhases) =>
      percentile(
        phases.map((p) => p[key]),
        50,
      );
    return {
      name: route.name,
      skills: route.skills,
      concurrency,
      turns: ttfb.length,
      ttfbP50: percentile(ttfb, 50),
      ttfbP99: percentile(ttfb, 99),
      totalP50: percentile(total, 50),
      totalP99: percentile(total, 99),
      phases: {
        response: p50('response'),
        firstStep: p50('firstStep'),
        firstText: p50('firstText'),
        finish: p50('finish'),
        end: p50('end'),
        steps: p50('steps'),
        textChunks: p50('textChunks'),
      },
    };
  });
}

const GREETING = 'Hello there, how is your day going?';

export interface ChatBenchOptions {
  workDir: string;
  /** Skill sets to run turns with, e.g. 10 and 10,000 skills, each with a route label. */
  skillSets: ReadonlyArray<{ label: string; skills: readonly Skill[] }>;
  /** Rounds of each route at this concurrency; each round runs `concurrency` turns at once. */
  rounds: (concurrency: number) => number;
  /** Rounds of the same-answer pair (one chat at a time); default `rounds(1)`. */
  sameAnswerRounds?: number;
  /** The first message of the n-th chat; default the same greeting for every chat (so no skill is relevant). */
  firstMessage?: (n: number) => string;
}

export async function benchChat(options: ChatBenchOptions): Promise<LatencyFigures[]> {
  const appDir = path.join(import.meta.dirname, '..');
  const dbPath = path.join(options.workDir, 'bench-chat.db');
  const home = path.join(options.workDir, 'home');
  fs.mkdirSync(home, { recursive: true });
  const config = loadConfig({ appDir, env: { SKILLCHAT_DB: dbPath, SKILLCHAT_SKILL_ROOTS: home }, home });
  const db = sqliteDatabase(openDb(dbPath));
  // One store per request, as the app hands out (`app.store.forUser`): what a store keeps (a chat's owner, checked
  // once) lasts one request on both routes.
  const stores = createDbChatStores(db);
  const setup = stores.forUser(LOCAL_USER_ID);
  const offline = getLanguageModel({ SKILLCHAT_OFFLINE_CHUNK_DELAY_MS: '0' });
  const fixed: LanguageModelSelection = { model: fixedAnswerModel(), label: 'fixed answer', kind: offline.kind };
  const access = createAccessResolver(config);
  const figures: LatencyFigures[] = [];

  /** A registry over one bench skill set: its scan and matcher stay the same between turns, as the app's do. */
  const registries = new WeakMap<readonly Skill[], TurnApp['registry']>();
  const registryFor = (skills: readonly Skill[]): TurnApp['registry'] => {
    let registry = registries.get(skills);
    if (!registry) {
      const scan: DiscoveryResult = {
        skills: skills as Skill[],
        diagnostics: [],
        collisions: [],
        roots: [],
        scannedAt: Date.now(),
        durationMs: 0,
      };
      const matcher = createMatcher(skills);
      registry = {
        current: async () => scan,
        matcher: async () => matcher,
        // The bench's people have no skills of their own.
        matcherWith: async () => matcher,
      };
      registries.set(skills, registry);
    }
    return registry;
  };
  /** The running turns, as the app keeps them (`app.turns`). */
  const turns = createRunningTurns();
  /** The app as a chat request sees it (server/chat/turn/deps.ts), with these skills and this model. */
  const appFor = (skills: readonly Skill[], model: LanguageModelSelection): TurnApp => {
    const choice = { id: model.label, label: model.label, provider: 'offline' as const, model: model.model };
    return {
      config,
      registry: registryFor(skills),
      store: stores,
      turns,
      models: { choose: async () => ({ choice }) },
      db,
      access,
    };
  };

  let seq = 0;
  /** A new chat and its first message: the same message on both routes. */
  const newChat = async (prefix: string): Promise<{ id: string; message: ChatMessage }> => {
    const id = `${prefix}-${++seq}`;
    await setup.createChat({ id, title: 'bench' });
    const text = options.firstMessage?.(seq) ?? GREETING;
    return { id, message: { id: `${id}-u`, role: 'user', parts: [{ type: 'text', text }] } };
  };
  const chatTurn = (skills: readonly Skill[], incremental = true, model = offline) => {
    const app = appFor(skills, model);
    return async () => {
      const { id, message } = await newChat('bench');
      const started = performance.now();
      // What app/api/chat/route.ts does per request, after parsing it and finding who asks.
      const deps = await turnDeps(app, LOCAL_USER_ID, id);
      const response = await runChatTurn({ chatId: id, trigger: 'submit-message', message }, { ...deps, incremental });
      const timing = await drain(response, started, performance.now());
      await turns.wait(id);
      return timing;
    };
  };
  const floorTurn =
    (model = offline) =>
    async () => {
      const { id, message } = await newChat('floor');
      const started = performance.now();
      const { response, done } = await bareRoute(stores.forUser(LOCAL_USER_ID), model, id, message);
      const timing = await drain(response, started, performance.now());
      await done;
      return timing;
    };

  for (const concurrency of [1, 20]) {
    const routes: Route[] = [{ name: 'bare route (floor)', skills: 0, turn: floorTurn() }];
    // What storing the answer as it streams costs: the same turn with the answer written only at its end (before).
    const [first] = options.skillSets;
    if (first) {
      routes.push({
        name: `${first.label}, ${BEFORE_INCREMENTAL}`,
        skills: first.skills.length,
        turn: chatTurn(first.skills, false),
      });
    }
    for (const { label, skills } of options.skillSets) {
      routes.push({
        name: label,
        skills: skills.length,
        turn: chatTurn(skills),
      });
    }
    figures.push(...(await measure(routes, concurrency, options.rounds(concurrency), concurrency === 1 ? 5 : 1)));
    // The same two with a model that gives both the same answer: what the turn's own machinery costs. The figure
    // with a target, so measured on its own pair with more turns: a median of 60 moved by 0.1 in a busy minute.
    const last = options.skillSets.at(-1);
    if (concurrency === 1 && last) {
      const same: Route[] = [
        { name: `bare route (floor), ${SAME_ANSWER}`, skills: 0, turn: floorTurn(fixed) },
        { name: `${last.label}, ${SAME_ANSWER}`, skills: last.skills.length, turn: chatTurn(last.skills, true, fixed) },
      ];
      figures.push(...(await measure(same, 1, options.sameAnswerRounds ?? options.rounds(1), 5)));
    }
  }
  return figures;
}

export interface UsageFigures {
  /** Activation rows (one per chat and skill) the counts are summed over. */
  rows: number;
  /** Reading them: the GROUP BY over every row (`activationCountsBySkill`), p50 ms. */
  readMs: number;
  /** Asking for them again within the keeping time (`usageCounts`), p50 ms. */
  keptMs: number;
}

/**
 * The use counts a new chat's catalog is ordered by when skills must be left out, on a team's history: `chats` chats
 * with three activations each over 10,000 skill names. Read at every new chat's first turn until they were kept.
 */
export async function benchUsageCounts(workDir: string, chats = 50_000): Promise<UsageFigures> {
  const native = openDb(path.join(workDir, 'bench-usage.db'));
  const d = sqliteDatabase(native);
  const client = native.$client;
  const chat = client.prepare(
    `INSERT INTO chats (id, user_id, title, created_at, updated_at) VALUES (?, '${LOCAL_USER_ID}', 'bench', 0, 0)`,
  );
  const activation = client.prepare(
    'INSERT INTO activations (chat_id, skill_name, first_how, last_how, explicit_count, model_count, first_at, last_at) ' +
      "VALUES (?, ?, 'model', 'model', 0, 1, 0, 0)",
  );
  client.transaction(() => {
    for (let i = 0; i < chats; i++) {
      chat.run(`c${i}`);
      for (let k = 0; k < 3; k++) activation.run(`c${i}`, `skill-${(i * 7 + k * 131) % 10_000}`);
    }
  })();
  const p50Of = async (fn: () => Promise<unknown>) => {
    const times: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t = performance.now();
      await fn();
      times.push(performance.now() - t);
    }
    return percentile(times, 50);
  };
  const readMs = await p50Of(() => activationCountsBySkill(d));
  await usageCounts(d);
  const keptMs = await p50Of(() => usageCounts(d));
  closeDb(native);
  return { rows: chats * 3, readMs, keptMs };
}
