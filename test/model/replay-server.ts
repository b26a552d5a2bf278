/**
 * For tests: a local HTTP server on 127.0.0.1 that answers like a model provider, replaying recorded streams from
 * `fixtures/` one event per write (so clients really parse a stream, not one buffered body), and keeping every
 * request it received for assertions.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isStepCount, type LanguageModel, streamText, tool } from 'ai';
import { z } from 'zod';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export type Reply =
  | { sse: string }
  | { json: unknown; status?: number }
  /** Anything else: an error page, a body that is not JSON. */
  | { text: string; status?: number; contentType?: string };

export interface ReplayServer {
  origin: string;
  received: ReceivedRequest[];
  close: () => Promise<void>;
}

export async function startReplayServer(route: (request: ReceivedRequest) => Reply): Promise<ReplayServer> {
  const received: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => {
      raw += chunk.toString('utf8');
    });
    req.on('end', () => {
      const request = {
        method: req.method ?? 'GET',
        url: req.url ?? '',
        headers: req.headers,
        body: raw ? (JSON.parse(raw) as unknown) : undefined,
      };
      received.push(request);
      const reply = route(request);
      if ('text' in reply) {
        res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'text/html' });
        res.end(reply.text);
        return;
      }
      if ('json' in reply) {
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply.json));
        return;
      }
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      const events = reply.sse.split(/(?<=\n\n)/);
      const writeNext = (i: number) => {
        if (i >= events.length) return void res.end();
        res.write(events[i]);
        setImmediate(() => writeNext(i + 1));
      };
      writeNext(0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The conversation every provider replay drives: a catalog with one skill, a request for it, and a `skills_activate`
 * tool answering `output`. Returns the stream's result, what the tool was called with, and the text deltas seen.
 */
export async function streamActivation(model: LanguageModel, output: unknown) {
  const executed: unknown[] = [];
  const result = streamText({
    model,
    instructions: '{"available_skills":[{"name":"csv-to-json","description":"Converts CSV to JSON."}]}',
    messages: [{ role: 'user', content: 'Convert a,b to JSON' }],
    tools: {
      skills_activate: tool({
        description: 'Load a skill',
        inputSchema: z.object({ name: z.enum(['csv-to-json']) }),
        execute: async (input) => {
          executed.push(input);
          return output;
        },
      }),
    },
    stopWhen: isStepCount(3),
  });
  const deltas: string[] = [];
  for await (const part of result.stream) if (part.type === 'text-delta') deltas.push(part.text);
  return { result, executed, deltas };
}
