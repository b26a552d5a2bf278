import { describe, expect, it } from 'vitest';
import { displayBaseUrl, getLanguageModel, OFFLINE_LABEL } from './provider';

describe('getLanguageModel', () => {
  it('uses the offline model without a key (an empty or blank key counts as none)', () => {
    for (const env of [{}, { OPENAI_API_KEY: '' }, { OPENAI_API_KEY: '  ', OPENAI_BASE_URL: ' ' }]) {
      const selection = getLanguageModel(env);
      expect(selection).toMatchObject({ kind: 'offline', label: OFFLINE_LABEL });
      expect(selection.model.specificationVersion).toBe('v4');
      expect(selection.model.provider).toBe('skillchat');
    }
  });

  it('uses a base URL without a key (local servers need none), over Chat Completions', () => {
    const selection = getLanguageModel({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', OPENAI_MODEL: 'llama3' });
    expect(selection).toMatchObject({ kind: 'openai', label: 'llama3 via http://127.0.0.1:11434/v1' });
    expect(selection.model.provider).toBe('openai.chat');
  });

  it('uses the Responses API for OpenAI itself', () => {
    const selection = getLanguageModel({ OPENAI_API_KEY: 'sk-secret' });
    expect(selection).toMatchObject({ kind: 'openai', label: 'OpenAI gpt-4.1-mini', contextWindow: 1_047_576 });
    expect(selection.model.provider).toBe('openai.responses');
    expect(selection.model.modelId).toBe('gpt-4.1-mini');
  });

  it('uses Chat Completions for a custom base URL and never shows credentials', () => {
    const selection = getLanguageModel({
      OPENAI_API_KEY: 'sk-secret',
      OPENAI_BASE_URL: 'http://user:pw@127.0.0.1:11434/v1/?token=abc',
      OPENAI_MODEL: 'gpt-oss:20b',
    });
    expect(selection.model.provider).toBe('openai.chat');
    expect(selection.label).toBe('gpt-oss:20b via http://127.0.0.1:11434/v1');
    // A known open-weight family (context-windows.ts).
    expect(selection.contextWindow).toBe(131_072);
    expect(JSON.stringify(selection.label)).not.toMatch(/secret|pw|abc/);
  });

  it('takes the context window from OPENAI_CONTEXT_WINDOW when set', () => {
    const selection = getLanguageModel({ OPENAI_API_KEY: 'k', OPENAI_MODEL: 'local', OPENAI_CONTEXT_WINDOW: '32768' });
    expect(selection.contextWindow).toBe(32768);
  });

  it('labels an unparseable base URL without echoing it', () => {
    expect(displayBaseUrl('not a url')).toBe('(invalid OPENAI_BASE_URL)');
  });
});
