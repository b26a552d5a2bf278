#!/usr/bin/env node
/**
 * A real MCP server over stdio, written with the official SDK, for the tests of server/mcp/ and the e2e test. Plain
 * JavaScript so `node test/mcp/stdio-server.mjs` starts it without a compile step.
 *
 * Tools: `echo` (text back), `add` (two numbers), `slow` (answers after `ms`), `fail` (an `isError` result),
 * `picture` (an image and a text), `env` (the value of one environment variable, to show what the server was given),
 * `big` (a text of `kib` KiB) and `grow` (registers `late`, so the client gets `notifications/tools/list_changed`).
 */
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

const text = (value) => ({ content: [{ type: 'text', text: value }] });

/** A 1x1 transparent PNG. */
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

function createServer() {
  const server = new McpServer({ name: 'skillchat-test-stdio', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Says the text back.', inputSchema: z.object({ text: z.string() }) },
    async ({ text: said }) => text(`echo: ${said}`),
  );
  server.registerTool(
    'add',
    { description: 'Adds two numbers.', inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => ({ ...text(String(a + b)), structuredContent: { sum: a + b } }),
  );
  server.registerTool(
    'slow',
    { description: 'Answers after ms milliseconds.', inputSchema: z.object({ ms: z.number() }) },
    async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return text(`waited ${ms} ms`);
    },
  );
  server.registerTool('fail', { description: 'Always fails.' }, async () => ({
    ...text('it failed on purpose'),
    isError: true,
  }));
  server.registerTool('picture', { description: 'A picture and a caption.' }, async () => ({
    content: [
      { type: 'image', data: PIXEL, mimeType: 'image/png' },
      { type: 'text', text: 'a 1x1 pixel' },
    ],
  }));
  server.registerTool(
    'env',
    { description: 'The value of an environment variable.', inputSchema: z.object({ name: z.string() }) },
    async ({ name }) => text(process.env[name] ?? '(unset)'),
  );
  server.registerTool(
    'big',
    { description: 'A long text.', inputSchema: z.object({ kib: z.number() }) },
    async ({ kib }) => text('x'.repeat(kib * 1024)),
  );
  server.registerTool('grow', { description: 'Adds the tool `late`.' }, async () => {
    if (!grown) {
      grown = true;
      server.registerTool('late', { description: 'Added by grow.' }, async () => text('late tool answered'));
    }
    return text('grown');
  });
  let grown = false;
  return server;
}

serveStdio(createServer);
