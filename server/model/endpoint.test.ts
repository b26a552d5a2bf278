/**
 * "Test" on /admin against local fakes on 127.0.0.1 (test/model/replay-server.ts): each kind's model list, and each
 * failure as its sentence, none of which carries the key. A refused address is never dialled.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplayServer, type Reply, startReplayServer } from '../../test/model/replay-server';
import { guardedFetch, listEndpointModels, refusedAddressClass } from './endpoint';

const KEY = 'sk-test-never-shown-1234';
let server: ReplayServer;
let reply: (url: string) => Reply;

beforeAll(async () => {
  server = await startReplayServer((request) => reply(request.url));
});
afterAll(() => server.close());

const received = () => server.received.at(-1)!;

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('listEndpointModels', () => {
  it('an OpenAI-compatible /models, sorted and without duplicates, with the key as a bearer token', async () => {
    reply = () => ({
      json: { object: 'list', data: [{ id: 'zeta' }, { id: 'alpha', object: 'model' }, { id: 'zeta' }] },
    });
    const result = await listEndpointModels({ kind: 'compatible', baseUrl: `${server.origin}/v1/`, apiKey: KEY });
    expect(result).toEqual({ ok: true, models: ['alpha', 'zeta'] });
    expect(received().url).toBe('/v1/models');
    expect(received().headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it("Anthropic's /v1/models with its key header and version", async () => {
    reply = () => ({ json: { data: [{ id: 'claude-sonnet-4-5', type: 'model' }], has_more: false } });
    const result = await listEndpointModels({ kind: 'anthropic', baseUrl: `${server.origin}/v1`, apiKey: KEY });
    expect(result).toEqual({ ok: true, models: ['claude-sonnet-4-5'] });
    expect(received().url).toBe('/v1/models?limit=1000');
    expect(received().headers['x-api-key']).toBe(KEY);
    expect(received().headers['anthropic-version']).toBe('2023-06-01');
  });

  it("Ollama's /api/tags, whichever of its URLs was given", async () => {
    reply = () => ({ json: { models: [{ name: 'qwen3:8b', model: 'qwen3:8b' }] } });
    expect(await listEndpointModels({ kind: 'ollama', baseUrl: `${server.origin}/v1` })).toEqual({
      ok: true,
      models: ['qwen3:8b'],
    });
    expect(received().url).toBe('/api/tags');
  });

  it.each<[string, Reply, RegExp]>([
    [
      'a refused key',
      { json: { error: { message: `Incorrect API key provided: ${KEY}` } }, status: 401 },
      /refused the key \(HTTP 401\)/,
    ],
    [
      'no model list there',
      { text: 'Not Found', status: 404 },
      /no model list at \/v1\/models \(HTTP 404\).*ends in \/v1/,
    ],
    ['a server error', { text: `<h1>${KEY}</h1>`, status: 500 }, /answered HTTP 500 to \/v1\/models/],
    ['a web page', { text: '<html>hello</html>' }, /not with JSON: is this the API's base URL/],
    ['JSON of another shape', { json: { models: 'all of them' } }, /not a model list \(no "data" array of ids\)/],
  ])('%s becomes a sentence without the key', async (_, answer, sentence) => {
    reply = () => answer;
    const result = await listEndpointModels({ kind: 'compatible', baseUrl: `${server.origin}/v1`, apiKey: KEY });
    expect(result.ok).toBe(false);
    const { problem } = result as { problem: string };
    expect(problem).toMatch(sentence);
    expect(problem).toContain(`${server.origin}/v1`);
    expect(problem).not.toContain(KEY);
  });

  it('asks for a key when none was given and the endpoint wants one', async () => {
    reply = () => ({ json: {}, status: 401 });
    expect(await listEndpointModels({ kind: 'compatible', baseUrl: `${server.origin}/v1` })).toEqual({
      ok: false,
      problem: `${server.origin}/v1 wants a key (HTTP 401): add one`,
    });
  });

  it('nothing listening, and no answer in time', async () => {
    const port = await closedPort();
    expect(
      await listEndpointModels({ kind: 'compatible', baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: KEY }),
    ).toEqual({
      ok: false,
      problem: `Nothing answered at http://127.0.0.1:${port}/v1: the connection was refused (is the server running, on that port?)`,
    });
    const hang = (_: string, init?: RequestInit) =>
      new Promise<Response>((_, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    expect(
      await listEndpointModels(
        { kind: 'compatible', baseUrl: 'http://127.0.0.1:9/v1' },
        { fetch: hang, timeoutMs: 50 },
      ),
    ).toEqual({ ok: false, problem: 'http://127.0.0.1:9/v1 did not answer within 0.05 s' });
  });

  it('never dials a metadata address', async () => {
    const asked: string[] = [];
    const spy = async (url: string) => {
      asked.push(url);
      return new Response('{}');
    };
    const result = await listEndpointModels(
      { kind: 'compatible', baseUrl: 'http://169.254.169.254/v1', apiKey: KEY },
      { fetch: spy },
    );
    expect(result).toEqual({
      ok: false,
      problem:
        '169.254.169.254 is a link-local (cloud metadata) address: no model server is there, so skillchat does not send requests to it',
    });
    expect(asked).toEqual([]);
  });
});

describe('refusedAddressClass', () => {
  it('allows what model servers use, refuses what they never are', () => {
    for (const ok of ['127.0.0.1', '::1', '10.0.0.5', '192.168.1.20', '100.64.1.1', 'fd12::1', '8.8.8.8']) {
      expect(refusedAddressClass(ok), ok).toBeNull();
    }
    expect(refusedAddressClass('169.254.169.254')).toBe('link-local (cloud metadata)');
    expect(refusedAddressClass('fe80::1')).toBe('link-local');
    expect(refusedAddressClass('100.100.100.200')).toBe('cloud metadata');
    expect(refusedAddressClass('fd00:ec2::254')).toBe('cloud metadata');
    expect(refusedAddressClass('224.0.0.1')).toBe('multicast');
  });
});

describe('guardedFetch (every request of a turn through a connection added on /admin)', () => {
  it('refuses a name that now resolves to a metadata address, before dialling; passes the rest on', async () => {
    const dialled: string[] = [];
    const inner = async (url: string) => {
      dialled.push(url);
      return new Response('{}');
    };
    const resolve = async (host: string) =>
      host === 'rebound.test'
        ? [{ address: '169.254.169.254', family: 4 as const }]
        : [{ address: '10.0.0.9', family: 4 as const }];
    const guarded = guardedFetch(resolve, inner);
    await expect(guarded('http://rebound.test/v1/chat/completions', { method: 'POST' })).rejects.toThrow(
      'rebound.test is a link-local (cloud metadata) address',
    );
    expect(dialled).toEqual([]);
    expect((await guarded('http://vllm.lan/v1/chat/completions')).status).toBe(200);
    expect(dialled).toEqual(['http://vllm.lan/v1/chat/completions']);
  });
});
