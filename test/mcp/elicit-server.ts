/**
 * An MCP server that asks the person during a tool call (`elicitation/create`), written with the official SDK, over
 * Streamable HTTP on 127.0.0.1. Its tools are written once (`inputRequired`): a 2026 client gets the request inside
 * the call's result (multi-round-trip), a 2025 one (`legacy` here: one stateful 2025 session) a request
 * pushed on the call's response stream.
 *
 * Tools: `book` ({ city }) asks for a date, a number of seats (default 2) and a class (titled options) and answers
 * what was booked, or that the person declined or cancelled; `signin` asks the person to open a link (URL mode);
 * `shape` takes a 2020-12 schema with `$schema` and `$defs`, to see it reach the model as sent.
 */

import { randomUUID } from 'node:crypto';
import {
  acceptedContent,
  createMcpHandler,
  fromJsonSchema,
  inputRequired,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { serveOverHttp, type TestHttpServer } from './servers';

export const BOOK_FORM = {
  type: 'object',
  properties: {
    date: { type: 'string', format: 'date', title: 'Travel date', description: 'The day you leave' },
    seats: { type: 'integer', title: 'Seats', minimum: 1, maximum: 9, default: 2 },
    class: {
      type: 'string',
      title: 'Class',
      oneOf: [
        { const: 'economy', title: 'Economy' },
        { const: 'business', title: 'Business' },
      ],
      default: 'economy',
    },
  },
  required: ['date'],
} as const;

export const SHAPE_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } } } },
  properties: { at: { $ref: '#/$defs/point' } },
  additionalProperties: false,
} as const;

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

function outcome(responses: Record<string, unknown> | undefined, key: string): string | undefined {
  const answer = responses?.[key] as { action?: string } | undefined;
  return answer?.action;
}

export function createElicitServer(): McpServer {
  const server = new McpServer({ name: 'skillchat-test-elicit', version: '1.0.0' });
  server.registerTool(
    'book',
    { description: 'Books a trip; asks the person for the details.', inputSchema: z.object({ city: z.string() }) },
    async ({ city }, ctx) => {
      const responses = ctx.mcpReq.inputResponses;
      const action = outcome(responses, 'details');
      if (action === 'decline' || action === 'cancel') return text(`the person chose ${action}`);
      const details = acceptedContent<{ date: string; seats: number; class: string }>(responses, 'details');
      if (!details) {
        return inputRequired({
          inputRequests: {
            details: inputRequired.elicit({
              message: `Details for your trip to ${city}`,
              requestedSchema: structuredClone(BOOK_FORM) as never,
            }),
          },
        });
      }
      return text(`booked ${city} on ${details.date}, ${details.seats} seats, ${details.class}`);
    },
  );
  server.registerTool(
    'signin',
    { description: 'Needs the person to sign in on a page.', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const action = outcome(ctx.mcpReq.inputResponses, 'signin');
      if (action) return text(`sign-in: ${action}`);
      return inputRequired({
        inputRequests: {
          signin: inputRequired.elicitUrl({
            message: 'Sign in to the test service',
            url: 'https://auth.example/signin?state=abc',
          }),
        },
      });
    },
  );
  server.registerTool(
    'shape',
    { description: 'Takes a point.', inputSchema: fromJsonSchema(SHAPE_SCHEMA as never) },
    async () => text('shape ok'),
  );
  return server;
}

/** The server on a loopback port; `legacy` keeps it to the 2025 protocol (pushed requests). */
export async function startElicitServer(options: { legacy?: boolean } = {}): Promise<TestHttpServer> {
  if (options.legacy) {
    // One 2025 session with state: the server can push a request on the call's response stream.
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: randomUUID });
    await createElicitServer().connect(transport);
    return serveOverHttp({ fetch: (request) => transport.handleRequest(request) });
  }
  return serveOverHttp(createMcpHandler(createElicitServer));
}
