import { describe, expect, it } from 'vitest';
import { knownContextWindow } from './context-windows';
import type { FetchLike } from './discovery';
import { createModelRegistry, OLLAMA_ORIGIN } from './registry';

/** A fetch that answers from a table of URLs and records every URL asked (the registry may reach no other). */
function fakeFetch(answers: Record<string, unknown>, options: { hang?: string[] } = {}) {
  const asked: string[] = [];
  const doFetch: FetchLike = async (url, init) => {
    asked.push(url);
    if (options.hang?.includes(url)) {
      return new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(new Error('timeout'))));
    }
    if (!(url in answers)) throw new Error('ECONNREFUSED');
    return new Response(JSON.stringify(answers[url]), { headers: { 'content-type': 'application/json' } });
  };
  return { asked, doFetch };
}

describe('createModelRegistry', () => {
  it('always has the offline model; it is the default with nothing configured', async () => {
    const { asked, doFetch } = fakeFetch({});
    const registry = createModelRegistry({ env: {}, fetch: doFetch });
    expect(await registry.list()).toEqual([
      { id: 'offline:builtin', label: 'Offline model (built-in)', provider: 'offline' },
    ]);
    expect(registry.defaultId).toBe('offline:builtin');
    // Nothing configured: the only address discovery reaches is Ollama's default port.
    expect(asked).toEqual([`${OLLAMA_ORIGIN}/api/tags`]);
  });

  it('lists OpenAI and Anthropic models when their keys are set, with known context windows', async () => {
    const registry = createModelRegistry({
      env: { OPENAI_API_KEY: 'sk', OPENAI_MODELS: 'gpt-4o, gpt-5', ANTHROPIC_API_KEY: 'ak' },
      ollamaOrigin: null,
    });
    expect((await registry.list()).map((m) => [m.id, m.contextWindow])).toEqual([
      ['offline:builtin', undefined],
      ['openai:gpt-4.1-mini', 1_047_576],
      ['openai:gpt-4o', 128_000],
      ['openai:gpt-5', 400_000],
      ['anthropic:claude-sonnet-4-5', 200_000],
      ['anthropic:claude-haiku-4-5', 200_000],
    ]);
    expect(registry.defaultId).toBe('openai:gpt-4.1-mini');
  });

  it('lists a compatible endpoint from its /models, without showing credentials in labels', async () => {
    const base = 'http://user:pw@127.0.0.1:8000/v1';
    const { asked, doFetch } = fakeFetch({
      [`${base}/models`]: { object: 'list', data: [{ id: 'meta-llama/Llama-3.1-8B-Instruct' }, { id: 'mystery' }] },
    });
    const registry = createModelRegistry({
      env: { SKILLCHAT_OPENAI_COMPATIBLE_URL: base },
      fetch: doFetch,
      ollamaOrigin: null,
    });
    expect(await registry.list()).toEqual([
      { id: 'offline:builtin', label: 'Offline model (built-in)', provider: 'offline' },
      {
        id: 'compatible:meta-llama/Llama-3.1-8B-Instruct',
        label: 'meta-llama/Llama-3.1-8B-Instruct via http://127.0.0.1:8000/v1',
        provider: 'compatible',
        contextWindow: 131_072,
      },
      { id: 'compatible:mystery', label: 'mystery via http://127.0.0.1:8000/v1', provider: 'compatible' },
    ]);
    expect(asked).toEqual([`${base}/models`]);
  });

  it('keeps OPENAI_BASE_URL working: its OPENAI_MODEL is listed and the default even when /models fails', async () => {
    const registry = createModelRegistry({
      env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_MODEL: 'llama3', OPENAI_CONTEXT_WINDOW: '8192' },
      fetch: fakeFetch({}).doFetch,
      ollamaOrigin: null,
    });
    expect(registry.defaultId).toBe('compatible:llama3');
    expect(await registry.find('compatible:llama3')).toEqual({
      id: 'compatible:llama3',
      label: 'llama3 via http://127.0.0.1:9/v1',
      provider: 'compatible',
      contextWindow: 8192,
    });
  });

  it('falls back to the offline model, with a note, when a chat picked a model that is gone', async () => {
    const registry = createModelRegistry({ env: {}, fetch: fakeFetch({}).doFetch });
    const gone = await registry.choose('ollama:qwen3:8b');
    expect(gone.choice).toMatchObject({ id: 'offline:builtin', provider: 'offline' });
    expect(gone.note).toMatch(/ollama:qwen3:8b is not available now/);
    const none = await registry.choose(null);
    expect(none.choice.id).toBe('offline:builtin');
    expect(none.note).toBeUndefined();
  });

  it('caches discovery, and known() never waits for a server that does not answer', async () => {
    let clock = 0;
    const { asked, doFetch } = fakeFetch({}, { hang: [`${OLLAMA_ORIGIN}/api/tags`] });
    const registry = createModelRegistry({ env: {}, fetch: doFetch, timeoutMs: 50, now: () => clock });
    const started = performance.now();
    expect(registry.known().map((m) => m.id)).toEqual(['offline:builtin']);
    expect(performance.now() - started).toBeLessThan(40);
    await registry.list(); // joins the probe known() started, which gives up after timeoutMs
    await registry.list();
    expect(asked).toHaveLength(1);
    clock += 60_000;
    await registry.list();
    expect(asked).toHaveLength(2);
  });

  it('asks a configured endpoint that did not answer again, instead of caching its silence', async () => {
    const base = 'http://127.0.0.1:8000/v1';
    const answers: Record<string, unknown> = {};
    const { asked, doFetch } = fakeFetch(answers);
    const registry = createModelRegistry({
      env: { SKILLCHAT_OPENAI_COMPATIBLE_URL: base },
      fetch: doFetch,
      ollamaOrigin: null,
    });
    expect((await registry.list()).map((m) => m.id)).toEqual(['offline:builtin']);
    answers[`${base}/models`] = { data: [{ id: 'late' }] };
    expect((await registry.list()).map((m) => m.id)).toEqual(['offline:builtin', 'compatible:late']);
    await registry.list();
    expect(asked).toHaveLength(2);
  });

  it('does not probe Ollama with SKILLCHAT_OLLAMA=off', async () => {
    const { asked, doFetch } = fakeFetch({});
    await createModelRegistry({ env: { SKILLCHAT_OLLAMA: 'off' }, fetch: doFetch }).list();
    expect(asked).toEqual([]);
  });

  it('SKILLCHAT_OLLAMA_URL moves the probe to a configured address, and only there', async () => {
    const { asked, doFetch } = fakeFetch({});
    await createModelRegistry({ env: { SKILLCHAT_OLLAMA_URL: 'http://10.0.0.5:11434/' }, fetch: doFetch }).list();
    expect(asked).toEqual(['http://10.0.0.5:11434/api/tags']);
  });

  it('SKILLCHAT_MODEL picks the default', () => {
    const registry = createModelRegistry({ env: { ANTHROPIC_API_KEY: 'k', SKILLCHAT_MODEL: 'offline:builtin' } });
    expect(registry.defaultId).toBe('offline:builtin');
  });
});

describe('knownContextWindow', () => {
  it('matches families by prefix, also behind an organisation and in Ollama-style names', () => {
    expect(knownContextWindow('claude-opus-4-1')).toBe(200_000);
    expect(knownContextWindow('gpt-4.1-mini-2025-04-14')).toBe(1_047_576);
    expect(knownContextWindow('Qwen/Qwen2.5-7B-Instruct')).toBe(32_768);
    expect(knownContextWindow('llama3.1:8b')).toBe(131_072);
    expect(knownContextWindow('phi-9')).toBeUndefined();
  });
});
