/**
 * The Anthropic path over the real wire, without a key: a local server speaks the Messages API's streaming SSE from
 * the recorded events in `fixtures/`, and the registry builds the model pointed at it (`ANTHROPIC_BASE_URL`).
 * Covers the request `@ai-sdk/anthropic` builds, `input_json_delta` tool input reassembled across events, and the
 * `tool_result` sent back on the next request.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplayServer, startReplayServer, streamActivation } from '../../test/model/replay-server';
import { createModelRegistry } from './registry';

interface AnthropicBlock {
  type: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
}
interface AnthropicRequest {
  model: string;
  stream: boolean;
  system?: { type: string; text: string }[];
  messages: { role: string; content: AnthropicBlock[] | string }[];
  tools?: { name: string; input_schema: { properties: Record<string, unknown> } }[];
}

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const TOOL_CALL_SSE = fixture('anthropic-messages-tool-call.sse.txt');
const TEXT_SSE = fixture('anthropic-messages-text.sse.txt');

let server: ReplayServer;

beforeAll(async () => {
  server = await startReplayServer((request) => {
    const body = request.body as AnthropicRequest;
    const last = body.messages.at(-1)?.content;
    // Like the real API: a conversation that ends with a tool result gets the answer, otherwise the tool call.
    const answersTool = Array.isArray(last) && last.some((b) => b.type === 'tool_result');
    return { sse: answersTool ? TEXT_SSE : TOOL_CALL_SSE };
  });
});

afterAll(() => server.close());

/** The text of a tool result block, whichever of Anthropic's two shapes (string or text blocks) carries it. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  return (content as { type: string; text: string }[]).map((b) => b.text).join('');
}

describe('Anthropic (Messages API streaming)', () => {
  it('calls the tool with parsed input, sends the result back, and streams the final text', async () => {
    const registry = createModelRegistry({
      env: { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: `${server.origin}/v1` },
      ollamaOrigin: null,
    });
    const { choice, note } = await registry.choose('anthropic:claude-sonnet-4-5');
    expect(note).toBeUndefined();
    expect(choice).toMatchObject({
      label: 'Anthropic claude-sonnet-4-5',
      provider: 'anthropic',
      contextWindow: 200_000,
    });

    const output = { name: 'csv-to-json', instructions: '# CSV to JSON\nSplit on the delimiter.' };
    const { result, executed, deltas } = await streamActivation(choice.model, output);

    expect(executed).toEqual([{ name: 'csv-to-json' }]);
    const steps = await result.steps;
    expect(steps[0]?.text).toBe("I'll load the CSV skill first.");
    expect(await result.text).toBe("The skill is loaded: **csv-to-json**. Paste your CSV and I'll convert it.");
    expect(deltas).toHaveLength(9);
    expect(steps.map((s) => s.finishReason)).toEqual(['tool-calls', 'stop']);
    expect(steps[0]?.toolCalls.map((c) => c.toolCallId)).toEqual(['toolu_01Pq7XcVd3nL8sKe2RwY6fGh']);
    expect((await result.totalUsage).inputTokens).toBe(518 + 703);
    expect((await result.totalUsage).outputTokens).toBe(61 + 19);

    expect(server.received).toHaveLength(2);
    const [first, second] = server.received.map((r) => ({ ...r, body: r.body as AnthropicRequest }));
    expect(first!.url).toBe('/v1/messages');
    expect(first!.headers['x-api-key']).toBe('sk-ant-test');
    expect(first!.headers['anthropic-version']).toBeTruthy();
    expect(first!.body).toMatchObject({ model: 'claude-sonnet-4-5', stream: true });
    expect(first!.body.system?.[0]?.text).toContain('available_skills');
    expect(first!.body.tools?.[0]?.name).toBe('skills_activate');
    expect(first!.body.tools?.[0]?.input_schema.properties.name).toMatchObject({ enum: ['csv-to-json'] });

    // The second request replays the assistant's text and tool use, then the tool's output as a tool_result.
    const assistant = second!.body.messages.find((m) => m.role === 'assistant')?.content as AnthropicBlock[];
    expect(assistant.find((b) => b.type === 'tool_use')).toMatchObject({
      id: 'toolu_01Pq7XcVd3nL8sKe2RwY6fGh',
      name: 'skills_activate',
      input: { name: 'csv-to-json' },
    });
    const toolResult = (second!.body.messages.at(-1)!.content as AnthropicBlock[]).find(
      (b) => b.type === 'tool_result',
    );
    expect(toolResult?.tool_use_id).toBe('toolu_01Pq7XcVd3nL8sKe2RwY6fGh');
    expect(JSON.parse(resultText(toolResult?.content))).toEqual(output);
  });
});
