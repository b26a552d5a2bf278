#!/usr/bin/env node
/**
 * A real MCP server over Streamable HTTP (official SDK, `createMcpHandler` behind node:http on 127.0.0.1) in its own
 * process, so a test can measure the client's memory alone. Prints its URL on stdout.
 *
 * Tools: `big` ({ mib }): a text of `mib` MiB; `small`: a short text.
 */
import http from 'node:http';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'skillchat-test-big', version: '1.0.0' });
  server.registerTool(
    'big',
    { description: 'A huge text.', inputSchema: z.object({ mib: z.number() }) },
    async ({ mib }) => ({
      content: [{ type: 'text', text: 'x'.repeat(mib * 1024 * 1024) }],
    }),
  );
  server.registerTool('small', { description: 'A short text.' }, async () => ({
    content: [{ type: 'text', text: 'small answer' }],
  }));
  return server;
});

const server = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = Buffer.concat(chunks);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  const response = await handler.fetch(
    new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, ...(body.length > 0 ? { body } : {}) }),
  );
  res.writeHead(response.status, Object.fromEntries(response.headers));
  const reader = response.body?.getReader();
  try {
    for (;;) {
      const next = await reader?.read();
      if (!next || next.done) break;
      if (!res.write(next.value)) await new Promise((resolve) => res.once('drain', resolve));
    }
  } catch {}
  res.end();
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}/mcp\n`);
});
