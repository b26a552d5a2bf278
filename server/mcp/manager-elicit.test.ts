/**
 * A server's `elicitation/create` during a tool call, against a real SDK server (test/mcp/elicit-server.ts): the
 * client declares the capability, the request reaches the call that caused it, the answer goes back and the tool's
 * result follows; a call that gave no way to ask gets a decline. Also: a tool's schema kept as the server sent it.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOOK_FORM, SHAPE_SCHEMA, startElicitServer } from '../../test/mcp/elicit-server';
import type { TestHttpServer } from '../../test/mcp/servers';
import { until } from '../../test/until';
import { resolveMcpConfig } from './config';
import { acceptWithDefaults, type ElicitParams } from './elicitation';
import { createMcpManager, type McpCallResult, type McpManager } from './manager';

const appDir = path.resolve(import.meta.dirname, '../..');
let http: TestHttpServer;
let manager: McpManager;

const textOf = (result: McpCallResult) => (result.content?.[0] as { text?: string } | undefined)?.text;

beforeAll(async () => {
  http = await startElicitServer();
  const config = { ...resolveMcpConfig({ mcpServers: { trips: { url: http.url } } }), connectTimeoutMs: 5000 };
  manager = createMcpManager(config, { env: {}, appDir, log: () => {} });
  manager.start();
  await until(() => (manager.connected().length === 1 ? true : undefined));
});
afterAll(async () => {
  await manager.close();
  await http.close();
});

describe('elicitation during a tool call', () => {
  it('asks the call that caused it, and the accepted values reach the server', async () => {
    const asked: ElicitParams[] = [];
    const result = await manager.call(
      'trips',
      'book',
      { city: 'Lisbon' },
      {
        timeoutMs: 5000,
        elicit: async (params) => {
          asked.push(params);
          return { action: 'accept', content: { date: '2027-01-02', seats: 3, class: 'business' } };
        },
      },
    );
    expect(asked).toMatchObject([{ message: 'Details for your trip to Lisbon', requestedSchema: BOOK_FORM }]);
    expect(textOf(result)).toBe('booked Lisbon on 2027-01-02, 3 seats, business');
  });

  it('fills the defaults of fields an accept leaves out (applyDefaults)', async () => {
    const result = await manager.call(
      'trips',
      'book',
      { city: 'Porto' },
      { timeoutMs: 5000, elicit: async () => ({ action: 'accept', content: { date: '2027-03-04' } }) },
    );
    expect(textOf(result)).toBe('booked Porto on 2027-03-04, 2 seats, economy');
  });

  it("the server's time limit stops while the person answers, on both eras", async () => {
    const legacy = await startElicitServer({ legacy: true });
    const config = { ...resolveMcpConfig({ mcpServers: { old: { url: legacy.url } } }), connectTimeoutMs: 5000 };
    const m = createMcpManager(config, { env: {}, appDir, log: () => {} });
    try {
      m.start();
      await until(() => (m.connected().length === 1 ? true : undefined));
      const slowPerson = async () => {
        await new Promise((resolve) => setTimeout(resolve, 900));
        return { action: 'accept' as const, content: { date: '2027-02-03' } };
      };
      for (const [label, target] of [
        ['trips', manager],
        ['old', m],
      ] as const) {
        const result = await target.call(label, 'book', { city: 'Braga' }, { timeoutMs: 400, elicit: slowPerson });
        expect(textOf(result)).toBe('booked Braga on 2027-02-03, 2 seats, economy');
      }
    } finally {
      await m.close();
      await legacy.close();
    }
  });

  it('sends decline and cancel back; a call with no way to ask declines', async () => {
    for (const action of ['decline', 'cancel'] as const) {
      const result = await manager.call(
        'trips',
        'book',
        { city: 'x' },
        { timeoutMs: 5000, elicit: async () => ({ action }) },
      );
      expect(textOf(result)).toBe(`the person chose ${action}`);
    }
    const headless = await manager.call('trips', 'book', { city: 'x' }, { timeoutMs: 5000 });
    expect(textOf(headless)).toBe('the person chose decline');
  });

  it('passes URL mode on with its link', async () => {
    const asked: ElicitParams[] = [];
    const result = await manager.call(
      'trips',
      'signin',
      {},
      {
        timeoutMs: 5000,
        elicit: async (params) => {
          asked.push(params);
          return { action: 'accept' };
        },
      },
    );
    expect(asked).toMatchObject([{ mode: 'url', url: 'https://auth.example/signin?state=abc' }]);
    expect(textOf(result)).toBe('sign-in: accept');
    // Headless: a URL is declined (no one to open it).
    expect(acceptWithDefaults(asked[0]!)).toEqual({ action: 'decline' });
  });

  it('answers a request pushed during the call by a 2025 server, to the call that caused it', async () => {
    const legacy = await startElicitServer({ legacy: true });
    const config = { ...resolveMcpConfig({ mcpServers: { old: { url: legacy.url } } }), connectTimeoutMs: 5000 };
    const m = createMcpManager(config, { env: {}, appDir, log: () => {} });
    try {
      m.start();
      await until(() => (m.connected().length === 1 ? true : undefined));
      // Two calls at once: each request reaches the call it belongs to.
      const seen: string[] = [];
      const book = (city: string, seats: number) =>
        m.call(
          'old',
          'book',
          { city },
          {
            timeoutMs: 5000,
            elicit: async (params) => {
              seen.push(`${city}: ${params.message}`);
              return { action: 'accept', content: { date: '2027-05-06', seats } };
            },
          },
        );
      const [faro, evora] = await Promise.all([book('Faro', 1), book('Evora', 4)]);
      expect(seen.sort()).toEqual(['Evora: Details for your trip to Evora', 'Faro: Details for your trip to Faro']);
      expect(textOf(faro)).toBe('booked Faro on 2027-05-06, 1 seats, economy');
      expect(textOf(evora)).toBe('booked Evora on 2027-05-06, 4 seats, economy');
    } finally {
      await m.close();
      await legacy.close();
    }
  });

  it('keeps a tool schema as the server sent it ($schema, $defs, additionalProperties)', () => {
    const shape = manager.connected()[0]!.tools.find((t) => t.name === 'shape')!;
    expect(shape.inputSchema).toEqual(SHAPE_SCHEMA);
  });
});
