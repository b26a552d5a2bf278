/**
 * The recipe "to add a model provider" (docs/ARCHITECTURE.md, "To add X, touch Y"), followed literally: a builder in
 * `provider.ts`; in `registry.ts` its name in `ModelProvider` and its entries (id `provider:model`, label,
 * `contextWindow`) in `configuredModels`; the picker's group name is then demanded by the type checker
 * (`PROVIDER_NAMES` is a `Record<ModelProvider, string>`). The test makes those edits on copies of the two files, puts
 * the copies in place of the real ones for this test file, and a chat's turn answers through the new provider from a
 * local server: the registry lists it, `choose` builds it, the answer is stored with its label. A renamed or moved
 * registration point fails here before it makes the recipe wrong.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ReplayServer, startReplayServer } from '../../test/model/replay-server';
import { createAccessResolver } from '../access/resolver';
import { createDbChatStore } from '../chat/db-store';
import { createRunningTurns, runChatTurn } from '../chat/turn';
import type { ChatMessage } from '../chat/wire-types';
import { loadConfig } from '../config';
import { openDb, sqliteDatabase } from '../db';

const recipe = vi.hoisted(() => {
  let made: Promise<{ provider: string; registry: string; dir: string }> | undefined;
  /** Writes the two edited copies once, into a folder under the ignored `data/`. */
  const make = () => {
    made ??= (async () => {
      const fs = await import('node:fs');
      const path = await import('node:path');
      const model = import.meta.dirname;
      const dir = fs.mkdtempSync(path.join(model, '..', '..', 'data', 'recipe-provider-'));
      // The copies import the real modules beside the originals; `./provider` stays the copy's own.
      const absolute = (text: string) =>
        text
          .replace(/from '\.\/(?!provider')([^']+)'/g, (_, p: string) => `from '${path.join(model, p)}'`)
          .replace(/import '\.\/([^']+)'/g, (_, p: string) => `import '${path.join(model, p)}'`)
          .replace(/from '\.\.\/([^']+)'/g, (_, p: string) => `from '${path.join(model, '..', p)}'`);
      const edit = (file: string, pairs: [RegExp, string][]) => {
        let text = fs.readFileSync(path.join(model, file), 'utf8');
        for (const [pattern, replacement] of pairs) {
          if (!pattern.test(text)) throw new Error(`${file}: the recipe's registration point ${pattern} is not there`);
          text = text.replace(pattern, replacement);
        }
        fs.writeFileSync(path.join(dir, file), absolute(text));
      };
      // 1. A builder in provider.ts (this provider speaks Chat Completions at its own address).
      edit('provider.ts', [
        [
          /^export function anthropicModel\(/m,
          [
            '/** Acme: Chat Completions at its own base URL, with its key. */',
            'export function acmeModel(modelId: string, apiKey: string, baseURL: string): LanguageModelV4 {',
            "  return createOpenAI({ apiKey, baseURL, name: 'acme' }).chat(modelId);",
            '}',
            '',
            'export function anthropicModel(',
          ].join('\n'),
        ],
      ]);
      // 2. Its name in ModelProvider, and its entries among the configured models (registry.ts).
      edit('registry.ts', [
        [/^export type ModelProvider = ([^;]+);$/m, "export type ModelProvider = $1 | 'acme';"],
        [/^import \{\n {2}anthropicModel,/m, 'import {\n  acmeModel,\n  anthropicModel,'],
        [
          /^ {2}const anthropicKey = nonEmpty\(env\.ANTHROPIC_API_KEY\);$/m,
          [
            '  const acmeKey = nonEmpty(env.ACME_API_KEY);',
            '  const acmeBase = nonEmpty(env.ACME_BASE_URL);',
            '  if (acmeKey && acmeBase) {',
            '    for (const id of list(env.ACME_MODELS)) {',
            '      models.push({',
            // biome-ignore lint/suspicious/noTemplateCurlyInString: source text of the copy, a template literal there
            "        entry: entry(`acme:${id}`, `Acme ${id}`, 'acme', knownContextWindow(id) ?? 32_000),",
            "        source: 'environment',",
            '        build: () => acmeModel(id, acmeKey, acmeBase),',
            '      });',
            '    }',
            '  }',
            '$&',
          ].join('\n'),
        ],
      ]);
      return { provider: path.join(dir, 'provider.ts'), registry: path.join(dir, 'registry.ts'), dir };
    })();
    return made;
  };
  return { make };
});

// The edited files in place of the real ones, for every module this test loads (the turn included).
vi.mock('./provider', async () => import(/* @vite-ignore */ (await recipe.make()).provider));
vi.mock('./registry', async () => import(/* @vite-ignore */ (await recipe.make()).registry));

const appDir = path.resolve(import.meta.dirname, '../..');
let tmp: string;
let server: ReplayServer;

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  const body = { id: 'chatcmpl-acme', object: 'chat.completion.chunk', created: 1764374400, model: 'acme-1' };
  return `data: ${JSON.stringify({ ...body, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-provider-recipe-'));
  server = await startReplayServer((request) => {
    const body = request.body as { stream?: boolean };
    if (!body.stream) {
      const message = { role: 'assistant', content: 'Hello from Acme' };
      return {
        json: {
          id: 'chatcmpl-title',
          object: 'chat.completion',
          choices: [{ index: 0, message, finish_reason: 'stop' }],
        },
      };
    }
    return {
      sse: [chunk({ role: 'assistant', content: 'Hello from Acme.' }), chunk({}, 'stop'), 'data: [DONE]\n\n'].join(''),
    };
  });
});

afterAll(async () => {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.rmSync((await recipe.make()).dir, { recursive: true, force: true });
});

describe('the recipe "a model provider", followed to the letter', () => {
  it('names the places this test edits, and the picker must name each provider', () => {
    const row = fs
      .readFileSync(path.join(appDir, 'docs', 'ARCHITECTURE.md'), 'utf8')
      .split('\n')
      .find((line) => line.startsWith('| a model provider |'));
    expect(row).toBeDefined();
    for (const point of [
      '`server/model/provider.ts`',
      '`registry.ts`',
      '`ModelProvider`',
      '`configuredModels`',
      '`PROVIDER_NAMES`',
      '`components/chat/model-picker.tsx`',
    ]) {
      expect(row).toContain(point);
    }
    // The picker's group names are a record over every provider: a new one without its name does not compile.
    const picker = fs.readFileSync(path.join(appDir, 'components', 'chat', 'model-picker.tsx'), 'utf8');
    expect(picker).toMatch(/const PROVIDER_NAMES: Record<ModelProvider, string> = \{/);
  });

  it('the registry lists the new provider, and a chat answers through it', async () => {
    const { createModelRegistry } = await import('./registry');
    const models = createModelRegistry({
      env: { ACME_API_KEY: 'acme-key', ACME_BASE_URL: `${server.origin}/v1`, ACME_MODELS: 'acme-1' },
      ollamaOrigin: null,
    });
    expect(models.known()).toContainEqual({
      id: 'acme:acme-1',
      label: 'Acme acme-1',
      provider: 'acme',
      contextWindow: 32_000,
    });

    const config = loadConfig({
      appDir,
      env: { SKILLCHAT_DB: path.join(tmp, 'chat.db') },
      home: path.join(tmp, 'home'),
    });
    const store = createDbChatStore(sqliteDatabase(openDb(config.databasePath)));
    await store.createChat({ id: 'acme' });
    expect((await store.setChatModel('acme', 'acme:acme-1'))?.model).toBe('acme:acme-1');
    const { choice, note } = await models.choose((await store.getChat('acme'))?.model);
    expect(note).toBeUndefined();
    const turns = createRunningTurns();
    const message: ChatMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Say hello' }] };
    const response = await runChatTurn(
      { chatId: 'acme', trigger: 'submit-message', message },
      { store, turns, config, skills: { skills: [] }, model: choice, access: createAccessResolver(config) },
    );
    await response.text();
    await turns.wait('acme');

    const sent = server.received.find((r) => (r.body as { stream?: boolean }).stream);
    expect(sent).toBeDefined();
    expect(sent!.url).toBe('/v1/chat/completions');
    expect(sent!.headers.authorization).toBe('Bearer acme-key');
    expect((sent!.body as { model: string }).model).toBe('acme-1');
    const answer = (await store.loadChatView('acme'))!.messages.at(-1)!;
    expect(answer.metadata).toMatchObject({ model: 'Acme acme-1' });
    expect(answer.parts.at(-1)).toMatchObject({ type: 'text', text: 'Hello from Acme.' });
  });
});
