/**
 * One message from an MCP server is read up to a cap, never whole: real SDK servers in their own processes (stdio,
 * and Streamable HTTP) answer 200 MiB; the call ends in an error that says why, the server stays connected, and this
 * process's memory grows far less than the answer.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STDIO_SERVER } from '../../test/mcp/servers';
import { until } from '../../test/until';
import { CappedLineBuffer, idFromEnds } from './capped-transport';
import { resolveMcpConfig } from './config';
import { createMcpManager, type McpManager } from './manager';

const appDir = path.resolve(import.meta.dirname, '../..');
const BIG_HTTP = path.join(appDir, 'test', 'mcp', 'big-http-server.mjs');
const MIB = 1024 * 1024;
/**
 * The answer asked for, and how much this process may grow while it arrives. The bound is not the cap: the 64 KiB
 * reads already passed over are garbage until V8 collects them, which it does when such memory passes about 64 MiB.
 */
const ANSWER_MIB = 200;
const BOUND = 96 * MIB;

let httpServer: ChildProcess;
let manager: McpManager;

beforeAll(async () => {
  httpServer = spawn(process.execPath, [BIG_HTTP], { cwd: appDir, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve) => {
    httpServer.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8').trim()));
  });
  const config = {
    ...resolveMcpConfig({
      mcpServers: { local: { command: process.execPath, args: [STDIO_SERVER] }, remote: { url } },
    }),
    connectTimeoutMs: 60_000,
  };
  manager = createMcpManager(config, { env: { PATH: process.env.PATH }, appDir, log: () => {} });
  manager.start();
  await until(() => (manager.connected().length === 2 ? true : undefined));
});

afterAll(async () => {
  await manager.close();
  httpServer.kill();
});

/** The call's outcome and the most this process's RSS rose above where it started while it ran. */
async function measured(call: () => Promise<unknown>): Promise<{ error: Error | null; growth: number }> {
  const start = process.memoryUsage.rss();
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  try {
    const error = await call().then(
      () => null,
      (e: Error) => e,
    );
    peak = Math.max(peak, process.memoryUsage.rss());
    if (process.env.SHOW_GROWTH) console.info(`RSS growth ${Math.round((peak - start) / MIB)} MiB`);
    return { error, growth: peak - start };
  } finally {
    clearInterval(timer);
  }
}

describe('an MCP answer larger than the cap', () => {
  it('over Streamable HTTP: the read stops at the cap, the call says why, memory stays bounded', async () => {
    const { error, growth } = await measured(() =>
      manager.call('remote', 'big', { mib: ANSWER_MIB }, { timeoutMs: 60_000 }),
    );
    expect(error?.message).toMatch(/larger than 4096 KiB; it was not read/);
    expect(growth).toBeLessThan(BOUND);
    const after = await manager.call('remote', 'small', {}, { timeoutMs: 10_000 });
    expect(JSON.stringify(after.content)).toContain('small answer');
  }, 90_000);

  it('over stdio: the line is skipped to its end, the call says why, the server stays connected', async () => {
    const { error, growth } = await measured(() =>
      manager.call('local', 'big', { kib: ANSWER_MIB * 1024 }, { timeoutMs: 60_000 }),
    );
    expect(error?.message).toMatch(/larger than 4096 KiB; it was not read/);
    expect(growth).toBeLessThan(BOUND);
    const after = await manager.call('local', 'echo', { text: 'still here' }, { timeoutMs: 10_000 });
    expect(JSON.stringify(after.content)).toContain('echo: still here');
  }, 90_000);

  it('answers under the cap arrive whole', async () => {
    const result = await manager.call('local', 'big', { kib: 1024 }, { timeoutMs: 10_000 });
    const first = result.content?.[0];
    expect(first?.type === 'text' ? first.text.length : 0).toBe(1024 * 1024);
  });
});

describe('CappedLineBuffer', () => {
  it('parses lines across chunks, and answers a line past the cap by its id', () => {
    const buffer = new CappedLineBuffer(64);
    buffer.append(Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0",'));
    buffer.append(Buffer.from(`"id":2,"result":{"t":"${'x'.repeat(200)}"}}\nnot json\n`));
    buffer.append(Buffer.from(`{"result":{"t":"${'y'.repeat(200)}"},"jsonrpc":"2.0","id":"abc"}\n`));
    const got = [buffer.readMessage(), buffer.readMessage(), buffer.readMessage(), buffer.readMessage()];
    expect(got[0]).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(got[1]).toMatchObject({ id: 2, error: { message: expect.stringMatching(/larger than/) } });
    expect(got[2]).toMatchObject({ id: 'abc', error: {} });
    expect(got[3]).toBeNull();
    expect(() => buffer.append(Buffer.from(`{"method":"x","params":{"t":"${'z'.repeat(100)}"}}\n`))).toThrow(/no id/);
  });

  it('finds an id at either end', () => {
    expect(idFromEnds('{"jsonrpc":"2.0","id":7,"result"', '')).toBe(7);
    expect(idFromEnds('{"result":', 'xx"}},"jsonrpc":"2.0","id":"a\\"b"}')).toBe('a"b');
    expect(idFromEnds('{"result":', 'xx"}}')).toBeNull();
  });
});
