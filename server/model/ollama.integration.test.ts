/**
 * The Ollama path over the real wire: a local server answers like Ollama (`/api/tags`, `/api/show`, and its
 * OpenAI-compatible `/v1/chat/completions` replaying recorded streams from `fixtures/`), and the registry finds it
 * with no configuration, takes each model's context length from `/api/show`, and answers with a tool call through
 * `@ai-sdk/openai` `.chat()`.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplayServer, startReplayServer, streamActivation } from '../../test/model/replay-server';
import { createModelRegistry } from './registry';

interface ChatRequest {
  model: string;
  stream: boolean;
  messages: { role: string; content?: string | null; tool_call_id?: string; tool_calls?: unknown[] }[];
  tools?: { function: { name: string } }[];
}

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const TOOL_CALL_SSE = fixture('ollama-chat-tool-call.sse.txt');
const TEXT_SSE = fixture('ollama-chat-text.sse.txt');

/** Ollama's `/api/tags` and `/api/show` answers, trimmed to fields it documents. */
const TAGS = {
  models: [
    {
      name: 'qwen3:8b',
      model: 'qwen3:8b',
      modified_at: '2026-11-02T09:14:11.0Z',
      size: 5225388164,
      digest: '500a1f067a9f782620b40bee6f7b0c89e17ae61f686b92c24933e4ca4b2b8b41',
      details: { format: 'gguf', family: 'qwen3', parameter_size: '8.2B', quantization_level: 'Q4_K_M' },
    },
    {
      name: 'nomic-embed-text:latest',
      model: 'nomic-embed-text:latest',
      modified_at: '2026-10-01T10:00:00.0Z',
      size: 274302450,
      digest: '0a109f422b47e3a30ba2b10eca18548e944e8a23073ee3f3e947efcf3c45e59f',
      details: { format: 'gguf', family: 'nomic-bert', parameter_size: '137M', quantization_level: 'F16' },
    },
  ],
};
const SHOW: Record<string, unknown> = {
  'qwen3:8b': {
    capabilities: ['completion', 'tools', 'thinking'],
    model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40960, 'qwen3.block_count': 36 },
  },
  'nomic-embed-text:latest': { model_info: { 'general.architecture': 'nomic-bert' } },
};

let server: ReplayServer;

beforeAll(async () => {
  server = await startReplayServer((request) => {
    if (request.url === '/api/tags') return { json: TAGS };
    if (request.url === '/api/show') {
      const show = SHOW[(request.body as { model: string }).model];
      return show ? { json: show } : { json: { error: 'model not found' }, status: 404 };
    }
    const body = request.body as ChatRequest;
    return { sse: body.messages.at(-1)?.role === 'tool' ? TEXT_SSE : TOOL_CALL_SSE };
  });
});

afterAll(() => server.close());

describe('Ollama (found on its port, OpenAI-compatible /v1 streaming)', () => {
  it('lists the models Ollama has, with their own context lengths', async () => {
    const registry = createModelRegistry({ env: {}, ollamaOrigin: server.origin });
    expect(await registry.list()).toEqual([
      { id: 'offline:builtin', label: 'Offline model (built-in)', provider: 'offline' },
      { id: 'ollama:nomic-embed-text:latest', label: 'nomic-embed-text:latest (Ollama)', provider: 'ollama' },
      { id: 'ollama:qwen3:8b', label: 'qwen3:8b (Ollama)', provider: 'ollama', contextWindow: 40960 },
    ]);
  });

  it('calls the tool, sends the result back, and streams the final text', async () => {
    const registry = createModelRegistry({ env: {}, ollamaOrigin: server.origin });
    const { choice, note } = await registry.choose('ollama:qwen3:8b');
    expect(note).toBeUndefined();
    expect(choice.model.provider).toBe('ollama.chat');
    server.received.length = 0;

    const output = { name: 'csv-to-json', instructions: '# CSV to JSON' };
    const { result, executed, deltas } = await streamActivation(choice.model, output);

    expect(executed).toEqual([{ name: 'csv-to-json' }]);
    expect(await result.text).toBe('Loaded **csv-to-json**. Send the CSV and I will convert it.');
    expect(deltas.length).toBeGreaterThan(5);
    const steps = await result.steps;
    expect(steps.map((s) => s.finishReason)).toEqual(['tool-calls', 'stop']);
    expect(steps[0]?.toolCalls.map((c) => c.toolCallId)).toEqual(['call_u7k2m9qd']);
    expect((await result.totalUsage).inputTokens).toBe(388 + 540);

    const chats = server.received.filter((r) => r.url === '/v1/chat/completions');
    expect(chats).toHaveLength(2);
    const [first, second] = chats.map((r) => r.body as ChatRequest);
    expect(first).toMatchObject({ model: 'qwen3:8b', stream: true });
    expect(first!.tools?.[0]?.function.name).toBe('skills_activate');
    const toolMessage = second!.messages.at(-1);
    expect(toolMessage).toMatchObject({ role: 'tool', tool_call_id: 'call_u7k2m9qd' });
    expect(JSON.parse(toolMessage?.content ?? 'null')).toEqual(output);
  });
});
