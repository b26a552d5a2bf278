/**
 * The connection manager against real MCP servers written with the official SDK: a stdio server run with `node`,
 * a Streamable HTTP server in this process, and servers that hang or do not start.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HANG_SERVER,
  STDIO_SERVER,
  startHangingHttpServer,
  startMcpHttpServer,
  type TestHttpServer,
} from '../../test/mcp/servers';
import { processesWith } from '../../test/processes';
import { until } from '../../test/until';
import { type McpConfig, resolveMcpConfig } from './config';
import { createMcpManager, type McpManager } from './manager';

const appDir = path.resolve(import.meta.dirname, '../..');

function config(servers: McpConfig['servers'], settings: Partial<McpConfig> = {}): McpConfig {
  return { ...resolveMcpConfig({ mcpServers: servers }), connectTimeoutMs: 5000, ...settings };
}

const stateOf = (manager: McpManager, label: string) => manager.list().find((s) => s.label === label)!;
const whenStatus = (manager: McpManager, label: string, status: string) =>
  until(() => (stateOf(manager, label).status === status ? stateOf(manager, label) : undefined));

let http: TestHttpServer;
const managers: McpManager[] = [];
function manager(c: McpConfig, env: Record<string, string | undefined> = { PATH: process.env.PATH }) {
  const m = createMcpManager(c, { env, appDir, backoff: { firstMs: 100, maxMs: 400 }, log: () => {} });
  managers.push(m);
  m.start();
  return m;
}

beforeAll(async () => {
  http = await startMcpHttpServer();
});
afterAll(async () => {
  await Promise.all(managers.map((m) => m.close()));
  await http.close();
});

describe('MCP connection manager', () => {
  it('connects to a stdio and a Streamable HTTP server and lists their tools under namespaced wire names', async () => {
    const m = manager(
      config({
        local: { command: process.execPath, args: [STDIO_SERVER] },
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own `${env:NAME}` syntax
        remote: { url: http.url, headers: { Authorization: 'Bearer ${env:TEST_TOKEN}' } },
      }),
      { PATH: process.env.PATH, TEST_TOKEN: 'secret-123' },
    );
    const local = await whenStatus(m, 'local', 'connected');
    const remote = await whenStatus(m, 'remote', 'connected');
    expect(local.tools.map((t) => t.wireName)).toEqual(expect.arrayContaining(['mcp_local_echo', 'mcp_local_add']));
    expect(local.serverInfo).toBe('skillchat-test-stdio 1.0.0');
    expect(local.target).toBe(`${process.execPath} ${STDIO_SERVER}`);
    expect(remote.tools.map((t) => t.wireName)).toEqual(['mcp_remote_lookup', 'mcp_remote_wait']);
    expect(remote.tools[0]!.inputSchema).toMatchObject({ type: 'object', properties: { key: { type: 'string' } } });
    // The header's secret is resolved when connecting and sent; /admin's target never shows it.
    expect(http.authorizations).toContain('Bearer secret-123');
    expect(JSON.stringify(m.list())).not.toContain('secret-123');
    expect(
      m
        .connected()
        .map((s) => s.label)
        .sort(),
    ).toEqual(['local', 'remote']);

    const result = await m.call('remote', 'lookup', { key: 'k1' }, { timeoutMs: 5000 });
    expect(result.content).toEqual([{ type: 'text', text: 'value of k1' }]);
    await m.call('local', 'fail', {}, { timeoutMs: 5000 });
    expect(stateOf(m, 'remote').stats.lookup).toMatchObject({ calls: 1, failures: 0 });
    expect(stateOf(m, 'local').stats.fail).toMatchObject({ calls: 1, failures: 1 });
  });

  it("a stdio server gets only the config's env plus PATH and HOME, never the app's own", async () => {
    const m = manager(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own `${env:NAME}` syntax
      config({ envs: { command: process.execPath, args: [STDIO_SERVER], env: { GIVEN: '${env:SOURCE}' } } }),
      { PATH: process.env.PATH, HOME: '/home/test', SOURCE: 'from-config', OPENAI_API_KEY: 'sk-app-secret' },
    );
    await whenStatus(m, 'envs', 'connected');
    const read = async (name: string) =>
      (await m.call('envs', 'env', { name }, { timeoutMs: 5000 })).content?.[0] as { text: string };
    expect((await read('GIVEN')).text).toBe('from-config');
    expect((await read('HOME')).text).toBe('/home/test');
    expect((await read('OPENAI_API_KEY')).text).toBe('(unset)');
    expect((await read('SOURCE')).text).toBe('(unset)');
  });

  it('follows notifications/tools/list_changed', async () => {
    const m = manager(config({ grows: { command: process.execPath, args: [STDIO_SERVER] } }));
    await whenStatus(m, 'grows', 'connected');
    expect(stateOf(m, 'grows').tools.map((t) => t.name)).not.toContain('late');
    await m.call('grows', 'grow', {}, { timeoutMs: 5000 });
    await until(() => (stateOf(m, 'grows').tools.some((t) => t.name === 'late') ? true : undefined));
  });

  it('a call over the time limit is an error that says so, and counts as a failure', async () => {
    const m = manager(config({ slow: { command: process.execPath, args: [STDIO_SERVER] } }));
    await whenStatus(m, 'slow', 'connected');
    const started = Date.now();
    await expect(m.call('slow', 'slow', { ms: 5000 }, { timeoutMs: 300 })).rejects.toThrow(
      '"slow" on the MCP server "slow" did not answer within 0.3 s',
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(stateOf(m, 'slow').stats.slow).toMatchObject({ calls: 1, failures: 1 });
  });

  it('servers that hang, do not start or lack a secret fail with the reason, and are retried with backoff', async () => {
    const hanging = await startHangingHttpServer();
    try {
      const m = manager(
        config(
          {
            'hang-stdio': { command: process.execPath, args: [HANG_SERVER] },
            'hang-http': { url: hanging.url },
            missing: { command: 'skillchat-no-such-program' },
            // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own `${env:NAME}` syntax
            'no-secret': { url: http.url, headers: { Authorization: 'Bearer ${env:UNSET_TOKEN}' } },
            off: { command: 'never-started', disabled: true },
          },
          { connectTimeoutMs: 400 },
        ),
      );
      // Nothing waits: right after start nothing is connected yet, and asking does not block.
      expect(m.connected()).toEqual([]);
      expect((await whenStatus(m, 'hang-stdio', 'failed')).reason).toContain('no answer within 0.4 s');
      expect((await whenStatus(m, 'hang-http', 'failed')).reason).toMatch(/timed out|no answer/);
      expect((await whenStatus(m, 'missing', 'failed')).reason).toContain('ENOENT');
      expect((await whenStatus(m, 'no-secret', 'failed')).reason).toBe(
        'the environment variable UNSET_TOKEN (named by Authorization) is not set',
      );
      expect(stateOf(m, 'off')).toMatchObject({ status: 'disabled', reason: 'disabled in the config' });
      // Retried: the count of failures in a row grows.
      await until(() => (stateOf(m, 'missing').failures >= 3 ? true : undefined));
      await expect(m.call('hang-http', 'x', {}, { timeoutMs: 100 })).rejects.toThrow(
        'The MCP server "hang-http" is not',
      );
    } finally {
      await hanging.close();
    }
  });

  it('close() leaves no server process behind: not one that hangs while starting, not one whose start failed', async () => {
    // Processes are found by a word in their arguments, which the hang server ignores.
    const mark = `close-test-${process.pid}-${Date.now()}`;
    const running = () => processesWith(mark);
    const hanging = (label: string, connectTimeoutMs: number) => {
      const m = createMcpManager(
        config(
          { [label]: { command: process.execPath, args: [HANG_SERVER, `${mark}-${label}`] } },
          { connectTimeoutMs },
        ),
        { env: { PATH: process.env.PATH }, appDir, backoff: { firstMs: 60_000, maxMs: 60_000 }, log: () => {} },
      );
      m.start();
      return m;
    };
    // The SDK ends a closed server's stdin and signals it only seconds later, on timers that do not keep a process
    // alive: close() waits for the process to be gone.
    const starting = hanging('starting', 60_000);
    await until(() => (running() === 1 ? true : undefined));
    await starting.close();
    expect(running()).toBe(0);
    // A start that failed was closed by the SDK itself, and closing it again returned at once.
    const failed = hanging('failed', 300);
    await whenStatus(failed, 'failed', 'failed');
    await failed.close();
    expect(running()).toBe(0);
  });

  it('a server that exits is marked failed with its last stderr line and reconnected', async () => {
    const m = manager(
      config({
        dies: {
          command: process.execPath,
          args: ['-e', 'console.error("boom: no database"); process.exit(3)'],
        },
      }),
    );
    const failed = await whenStatus(m, 'dies', 'failed');
    expect(failed.reason).toMatch(/closed.*boom: no database/);
  });
});
