/**
 * The recipe "to add a tool" (docs/ARCHITECTURE.md, "To add X, touch Y"), followed literally: the tool's own two files
 * (`<name>.ts` with `defineTool`, `<name>.txt`) and the two registration points, its wire name in `names.ts` and its
 * declaration in `TOOL_DECLARATIONS` (`index.ts`). The test makes those edits on copies of the two registration files,
 * puts the copies in place of the real ones for this test file, and runs a real turn in which a model (a local server
 * speaking Chat Completions) calls the new tool: the tool set, its description, the call and the stored card follow
 * with nothing else touched. A renamed or moved registration point fails here before it makes the recipe wrong.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ReplayServer, startReplayServer } from '../../test/model/replay-server';
import { createAccessResolver } from '../access/resolver';
import { createDbChatStore } from '../chat/db-store';
import { createRunningTurns, runChatTurn, type TurnDeps } from '../chat/turn';
import type { ChatMessage } from '../chat/wire-types';
import { loadConfig } from '../config';
import { openDb, sqliteDatabase } from '../db';
import { compatibleModel } from '../model/provider';
import { discoverSkills } from '../skills/discovery/discovery';

const recipe = vi.hoisted(() => {
  let made: Promise<{ names: string; index: string; dir: string }> | undefined;
  /** Writes the recipe's four files (two copies edited, two new) once, into a folder under the ignored `data/`. */
  const make = () => {
    made ??= (async () => {
      const fs = await import('node:fs');
      const path = await import('node:path');
      const tools = import.meta.dirname;
      const dir = fs.mkdtempSync(path.join(tools, '..', '..', 'data', 'recipe-tool-'));
      // The copies import the real modules beside the originals; `./names` and the new tool stay the copies' own.
      const absolute = (text: string) =>
        text
          .replace(/from '\.\/(?!names'|recipe-echo')([^']+)'/g, (_, p: string) => `from '${path.join(tools, p)}'`)
          .replace(/from '\.\.\/([^']+)'/g, (_, p: string) => `from '${path.join(tools, '..', p)}'`);
      const edit = (file: string, pairs: [RegExp, string][]) => {
        let text = fs.readFileSync(path.join(tools, file), 'utf8');
        for (const [pattern, replacement] of pairs) {
          if (!pattern.test(text)) throw new Error(`${file}: the recipe's registration point ${pattern} is not there`);
          text = text.replace(pattern, replacement);
        }
        fs.writeFileSync(path.join(dir, file), absolute(text));
      };
      // 1. Its wire name in names.ts: the constant, and the name among the built-in tools' names.
      edit('names.ts', [
        [/^export const TOOL_SHELL = '[^']+';$/m, "$&\nexport const TOOL_ECHO = 'recipe_echo';"],
        [
          /^export type ToolName =\n((?:\s+\| typeof TOOL_\w+\n?)+);/m,
          'export type ToolName =\n$1\n  | typeof TOOL_ECHO;',
        ],
      ]);
      // 2. The declaration in TOOL_DECLARATIONS (index.ts).
      edit('index.ts', [
        [
          /^export const TOOL_DECLARATIONS = \[([^\]]+)\] as const;$/m,
          'export const TOOL_DECLARATIONS = [$1, echoTool] as const;',
        ],
        [/^import \{ searchTool \} from '\.\/search';$/m, "$&\nimport { echoTool } from './recipe-echo';"],
      ]);
      // 3. The tool's own two files.
      fs.writeFileSync(
        path.join(dir, 'recipe-echo.ts'),
        absolute(
          [
            "import { z } from 'zod';",
            "import { defineTool } from './define';",
            "import { TOOL_ECHO } from './names';",
            '',
            'export const echoTool = defineTool({',
            '  name: TOOL_ECHO,',
            "  descriptionFile: new URL('./recipe-echo.txt', import.meta.url),",
            '  input: () => z.object({ text: z.string().min(1).max(200) }),',
            '  output: z.object({ echoed: z.string() }),',
            '  execute: async (_ctx, { text }) => ({ echoed: text.toUpperCase() }),',
            '});',
            '',
          ].join('\n'),
        ),
      );
      fs.writeFileSync(path.join(dir, 'recipe-echo.txt'), 'Says the text back in capitals.\n');
      return { names: path.join(dir, 'names.ts'), index: path.join(dir, 'index.ts'), dir };
    })();
    return made;
  };
  return { make };
});

// The edited registration files in place of the real ones, for every module this test loads (the turn included).
vi.mock('./names', async () => import(/* @vite-ignore */ (await recipe.make()).names));
vi.mock('./index', async () => import(/* @vite-ignore */ (await recipe.make()).index));

const appDir = path.resolve(import.meta.dirname, '../..');
let tmp: string;
let server: ReplayServer;

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  const body = { id: 'chatcmpl-recipe', object: 'chat.completion.chunk', created: 1764374400, model: 'replay-mini' };
  return `data: ${JSON.stringify({ ...body, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

const toolCall = (name: string, args: unknown) =>
  [
    chunk({
      role: 'assistant',
      content: null,
      tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    }),
    chunk({}, 'tool_calls'),
    'data: [DONE]\n\n',
  ].join('');

const text = (words: string) =>
  [chunk({ role: 'assistant', content: words }), chunk({}, 'stop'), 'data: [DONE]\n\n'].join('');

interface WireRequest {
  stream?: boolean;
  tools?: { function: { name: string; description: string } }[];
  messages: { role: string; content: unknown }[];
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-tool-recipe-'));
  fs.mkdirSync(path.join(tmp, 'skills', 'greeting'), { recursive: true });
  fs.writeFileSync(
    path.join(tmp, 'skills', 'greeting', 'SKILL.md'),
    '---\nname: greeting\ndescription: Greets people by name.\n---\nSay hello.\n',
  );
  // Like a model that has read the tool's description: it calls the tool, then answers from its result.
  server = await startReplayServer((request) => {
    const body = request.body as WireRequest;
    if (!body.stream) {
      // The chat's title, asked after the first answer.
      const title = { role: 'assistant', content: 'Echo' };
      return {
        json: {
          id: 'chatcmpl-title',
          object: 'chat.completion',
          choices: [{ index: 0, message: title, finish_reason: 'stop' }],
        },
      };
    }
    const results = body.messages.filter((m) => m.role === 'tool');
    if (results.length === 0) return { sse: toolCall('recipe_echo', { text: 'ping' }) };
    return { sse: text('The tool said PING.') };
  });
});

afterAll(async () => {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.rmSync((await recipe.make()).dir, { recursive: true, force: true });
});

describe('the recipe "a tool", followed to the letter', () => {
  it('names the registration points this test edits', () => {
    const row = fs
      .readFileSync(path.join(appDir, 'docs', 'ARCHITECTURE.md'), 'utf8')
      .split('\n')
      .find((line) => line.startsWith('| a tool |'));
    expect(row).toBeDefined();
    for (const point of [
      '`server/tools/<name>.ts`',
      '`<name>.txt`',
      '`tools/names.ts`',
      '`TOOL_DECLARATIONS`',
      '`tools/index.ts`',
    ]) {
      expect(row).toContain(point);
    }
  });

  it('the new tool is offered, described from its .txt, called by the model in a real turn, and stored as its card', async () => {
    const { TOOL_DECLARATIONS } = await import('./index');
    expect(TOOL_DECLARATIONS.map((d) => d.name)).toContain('recipe_echo');

    const config = loadConfig({
      appDir,
      env: { SKILLCHAT_DB: path.join(tmp, 'chat.db'), SKILLCHAT_SKILL_ROOTS: path.join(tmp, 'skills') },
      home: path.join(tmp, 'home'),
    });
    const store = createDbChatStore(sqliteDatabase(openDb(config.databasePath)));
    const { skills } = await discoverSkills([{ path: path.join(tmp, 'skills'), scope: 'project', kind: 'app' }], {
      limits: config.limits,
    });
    const turns = createRunningTurns();
    const deps: TurnDeps = {
      store,
      turns,
      config,
      skills: { skills },
      model: {
        model: compatibleModel('replay-mini', `${server.origin}/v1`),
        label: 'replay-mini',
        provider: 'compatible',
      },
      access: createAccessResolver(config),
    };
    await store.createChat({ id: 'recipe' });
    const message: ChatMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Echo ping, please' }] };
    await (await runChatTurn({ chatId: 'recipe', trigger: 'submit-message', message }, deps)).text();
    await turns.wait('recipe');

    const [first, second] = server.received.map((r) => r.body as WireRequest).filter((b) => b.stream);
    expect(first?.tools?.find((t) => t.function.name === 'recipe_echo')?.function.description).toBe(
      'Says the text back in capitals.',
    );
    expect(JSON.stringify(second?.messages.filter((m) => m.role === 'tool'))).toContain('PING');
    const answer = (await store.loadChatView('recipe'))!.messages.at(-1)!;
    expect(answer.parts).toContainEqual(
      expect.objectContaining({ type: 'tool-recipe_echo', state: 'output-available', output: { echoed: 'PING' } }),
    );
    expect(answer.parts.at(-1)).toMatchObject({ type: 'text', text: 'The tool said PING.' });
  });
});
