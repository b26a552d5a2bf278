/**
 * The OpenAI path over the real wire, without a key: a local server speaks Chat Completions streaming (SSE) from
 * the responses in `fixtures/`, and `getLanguageModel` is pointed at it the way an Ollama or vLLM user would
 * (`OPENAI_BASE_URL`). Covers what unit tests cannot: the request the provider builds, tool-call argument deltas
 * reassembled across chunks, and the tool result sent back on the next request.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamActivation } from '../../test/model/replay-server';
import { getLanguageModel } from './provider';

/** OpenAI's wire shapes, only the parts the assertions read. */
interface WireMessage {
  role: string;
  content?: string | null;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}
interface WireRequest {
  model: string;
  stream: boolean;
  messages: WireMessage[];
  tools?: { type: string; function: { name: string; parameters: { properties: Record<string, unknown> } } }[];
}
interface Received {
  url: string;
  headers: IncomingHttpHeaders;
  body: WireRequest;
}

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const TOOL_CALL_SSE = fixture('chat-completions-tool-call.sse.txt');
const TEXT_SSE = fixture('chat-completions-text.sse.txt');

let server: Server;
let baseURL: string;
const received: Received[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => {
      raw += chunk.toString('utf8');
    });
    req.on('end', () => {
      const body = JSON.parse(raw) as WireRequest;
      received.push({ url: req.url ?? '', headers: req.headers, body });
      // Like the real API: a conversation that ends with a tool result gets the answer, otherwise the tool call.
      const sse = body.messages.at(-1)?.role === 'tool' ? TEXT_SSE : TOOL_CALL_SSE;
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      // One write per event, so the client really parses a stream and not one buffered body.
      const events = sse.split(/(?<=\n\n)/);
      const writeNext = (i: number) => {
        if (i >= events.length) {
          res.end();
          return;
        }
        res.write(events[i]);
        setImmediate(() => writeNext(i + 1));
      };
      writeNext(0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('OpenAI-compatible endpoint (Chat Completions streaming)', () => {
  it('calls the tool with parsed input, sends the result back, and streams the final text', async () => {
    const selection = getLanguageModel({ OPENAI_API_KEY: 'test', OPENAI_BASE_URL: baseURL });
    expect(selection.kind).toBe('openai');
    expect(selection.label).toBe(`gpt-4.1-mini via ${baseURL}`);

    const output = {
      name: 'csv-to-json',
      description: 'Converts CSV to JSON.',
      instructions: '# CSV to JSON\nSplit on the delimiter.',
      resources: ['references/CSV-EDGE-CASES.md'],
      truncated: false,
    };
    const { result, executed, deltas } = await streamActivation(selection.model, output);

    expect(executed).toEqual([{ name: 'csv-to-json' }]);
    expect(await result.text).toBe("I activated **csv-to-json**. Paste your CSV and I'll convert it to JSON.");
    expect(deltas.length).toBeGreaterThan(5);
    const steps = await result.steps;
    expect(steps.map((s) => s.finishReason)).toEqual(['tool-calls', 'stop']);
    expect(steps[0]?.toolCalls.map((c) => c.toolCallId)).toEqual(['call_Xq3kT9bLw2']);
    expect((await result.totalUsage).inputTokens).toBe(412 + 655);

    expect(received).toHaveLength(2);
    const [first, second] = received as [Received, Received];
    expect(first.url).toBe('/v1/chat/completions');
    expect(first.headers.authorization).toBe('Bearer test');
    expect(first.body).toMatchObject({ model: 'gpt-4.1-mini', stream: true });
    expect(first.body.messages[0]).toMatchObject({ role: 'system' });
    expect(first.body.tools?.[0]?.function.name).toBe('skills_activate');
    expect(first.body.tools?.[0]?.function.parameters.properties.name).toMatchObject({ enum: ['csv-to-json'] });

    // The second request replays the assistant's tool call and carries the tool's output.
    const assistant = second.body.messages.find((m) => m.role === 'assistant');
    expect(assistant?.tool_calls).toEqual([
      {
        id: 'call_Xq3kT9bLw2',
        type: 'function',
        function: { name: 'skills_activate', arguments: '{"name":"csv-to-json"}' },
      },
    ]);
    const toolMessage = second.body.messages.at(-1);
    expect(toolMessage?.role).toBe('tool');
    expect(toolMessage?.tool_call_id).toBe('call_Xq3kT9bLw2');
    expect(JSON.parse(toolMessage?.content ?? 'null')).toEqual(output);
  });
});
