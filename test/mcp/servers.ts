/**
 * MCP servers for tests. Over stdio: `stdio-server.mjs` (real, official SDK) and `hang-server.mjs` (never answers),
 * run with `node`. Streamable HTTP, in-process on 127.0.0.1: a real one written with the official SDK
 * (`createMcpHandler`, the web-standard handler, behind node:http), and one that accepts connections and never
 * answers.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';

export const STDIO_SERVER = path.join(import.meta.dirname, 'stdio-server.mjs');
export const HANG_SERVER = path.join(import.meta.dirname, 'hang-server.mjs');

export interface TestHttpServer {
  url: string;
  /** The Authorization header of every request, in order. */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

function closer(server: http.Server) {
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/** Tools: `lookup` ({ key }) answers `value of <key>`; `wait` ({ ms }) answers after ms milliseconds. */
export async function startMcpHttpServer(): Promise<TestHttpServer> {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'skillchat-test-http', version: '1.0.0' });
    server.registerTool(
      'lookup',
      { description: 'Looks a key up.', inputSchema: z.object({ key: z.string() }) },
      async ({ key }) => ({ content: [{ type: 'text', text: `value of ${key}` }] }),
    );
    server.registerTool(
      'wait',
      { description: 'Answers after ms milliseconds.', inputSchema: z.object({ ms: z.number() }) },
      async ({ ms }) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
      },
    );
    return server;
  });
  return serveOverHttp(handler);
}

/** A web-standard MCP handler (`createMcpHandler`) behind node:http on 127.0.0.1. */
export async function serveOverHttp(handler: { fetch(request: Request): Promise<Response> }): Promise<TestHttpServer> {
  const authorizations: (string | undefined)[] = [];
  const server = http.createServer(async (req, res) => {
    authorizations.push(req.headers.authorization);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(name, value);
    }
    const response = await handler.fetch(
      new Request(`http://127.0.0.1${req.url}`, {
        method: req.method,
        headers,
        ...(body.length > 0 ? { body } : {}),
      }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    const reader = response.body?.getReader();
    for (;;) {
      const next = await reader?.read();
      if (!next || next.done) break;
      res.write(next.value);
    }
    res.end();
  });
  return { url: await listen(server), authorizations, close: closer(server) };
}

/** Accepts every request and never answers it. */
export async function startHangingHttpServer(): Promise<TestHttpServer> {
  const server = http.createServer(() => {});
  return { url: await listen(server), authorizations: [], close: closer(server) };
}
