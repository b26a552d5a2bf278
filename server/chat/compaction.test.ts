import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { compactConversation, compactHistory, latestSummary, messageTokens, type Summarise } from './compaction';
import type { ChatMessage } from './wire-types';

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
const user = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });
const toolCall = (id: string): ModelMessage => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'skills_activate', input: { name: 'x' } }],
});
const toolResult = (id: string): ModelMessage => ({
  role: 'tool',
  content: [
    { type: 'tool-result', toolCallId: id, toolName: 'skills_activate', output: { type: 'text', value: 'ok' } },
  ],
});

describe('compactHistory', () => {
  const long = [
    user(words(300)),
    toolCall('a'),
    toolResult('a'),
    assistant(words(300)),
    user(words(300)),
    assistant(words(300)),
    user('the newest question'),
  ];

  it('leaves a history that fits alone, and any history without a known window', () => {
    expect(compactHistory(long, { contextWindow: 1_000_000, reservedTokens: 0 }).dropped).toBe(0);
    expect(compactHistory(long, { contextWindow: undefined, reservedTokens: 0 }).dropped).toBe(0);
  });

  it('drops whole turns from the front, never splitting a tool call from its result', () => {
    const total = long.reduce((n, m) => n + messageTokens(m), 0);
    const { messages, dropped } = compactHistory(long, { contextWindow: Math.round(total * 1.3), reservedTokens: 0 });
    expect(dropped).toBe(4);
    expect(messages[0]!.role).toBe('user');
    expect(messages.at(-1)).toEqual(user('the newest question'));
    expect(messages.some((m) => m.role === 'tool')).toBe(false);
  });

  it('keeps the newest user message even when it alone is too long; reserved tokens count', () => {
    const { messages, dropped } = compactHistory(long, { contextWindow: 100, reservedTokens: 0 });
    expect(dropped).toBe(6);
    expect(messages).toEqual([user('the newest question')]);
    const total = long.reduce((n, m) => n + messageTokens(m), 0);
    expect(compactHistory(long, { contextWindow: total * 2, reservedTokens: total }).dropped).toBeGreaterThan(0);
  });
});

describe('compactConversation', () => {
  // Three turns, the first with a tool call (one UI answer, three model messages), then the newest question.
  const ui = (id: string, role: 'user' | 'assistant', parts: ChatMessage['parts'] = []): ChatMessage => ({
    id,
    role,
    parts,
  });
  const history = [ui('u1', 'user'), ui('a1', 'assistant'), ui('u2', 'user'), ui('a2', 'assistant'), ui('u3', 'user')];
  const converted = [
    user(words(300)),
    toolCall('a'),
    toolResult('a'),
    assistant(words(300)),
    user(words(300)),
    assistant(words(300)),
    user('the newest question'),
  ];
  const total = converted.reduce((n, m) => n + messageTokens(m), 0);
  const calls: Parameters<Summarise>[0][] = [];
  const summarise: Summarise = async (input) => {
    calls.push(input);
    return `summary of ${input.messages.length}`;
  };

  it('without a model to summarise, or when all fits, is compactHistory', async () => {
    const window = Math.round(total * 1.3);
    const dropped = await compactConversation({
      history,
      converted,
      contextWindow: window,
      reservedTokens: 0,
      summarise: null,
    });
    expect(dropped).toEqual(compactHistory(converted, { contextWindow: window, reservedTokens: 0 }));
    const fits = await compactConversation({ history, converted, contextWindow: 1e6, reservedTokens: 0, summarise });
    expect(fits).toEqual({ messages: converted, dropped: 0 });
    expect(calls).toEqual([]);
  });

  it('summarises the left-out turns whole, keyed by the last UI message they end with', async () => {
    calls.length = 0;
    const result = await compactConversation({
      history,
      converted,
      contextWindow: Math.round(total * 1.3),
      reservedTokens: 0,
      summarise,
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.previous).toBeUndefined();
    expect(calls[0]!.messages[0]).toEqual(converted[0]);
    expect(result.messages[0]!.role).toBe('user');
    expect(result.summary).toEqual({
      summary: `summary of ${result.dropped}`,
      through: result.dropped === 4 ? 'a1' : 'a2',
    });
    expect(result.summarisedNow).toBe(true);
  });

  it("reuses an earlier answer's summary while the rest fits, and extends it when it does not", async () => {
    calls.length = 0;
    const withSummary = [
      ...history.slice(0, 3),
      ui('a2', 'assistant', [
        { type: 'data-compaction', data: { dropped: 4, summarised: true, summary: 'OLD', through: 'a1' } },
      ]),
      history[4]!,
    ];
    expect(latestSummary(withSummary)).toEqual({ summary: 'OLD', through: 'a1' });
    const roomy = await compactConversation({
      history: withSummary,
      converted,
      contextWindow: Math.round(total * 1.3),
      reservedTokens: 0,
      summarise,
    });
    expect(calls).toEqual([]);
    expect(roomy).toMatchObject({ dropped: 4, summary: { summary: 'OLD', through: 'a1' }, summarisedNow: false });
    expect(roomy.messages).toEqual(converted.slice(4));

    const tight = await compactConversation({
      history: withSummary,
      converted,
      contextWindow: 600,
      reservedTokens: 0,
      summarise,
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toEqual({ previous: 'OLD', messages: converted.slice(4, 6) });
    expect(tight).toMatchObject({ dropped: 6, summary: { through: 'a2' }, summarisedNow: true });
    expect(tight.messages).toEqual([user('the newest question')]);
  });

  it('a failed summary drops instead and says why', async () => {
    const errors: unknown[] = [];
    const window = Math.round(total * 1.3);
    const result = await compactConversation({
      history,
      converted,
      contextWindow: window,
      reservedTokens: 0,
      summarise: () => Promise.reject(new Error('down')),
      onError: (e) => errors.push(e),
    });
    expect(result).toEqual(compactHistory(converted, { contextWindow: window, reservedTokens: 0 }));
    expect((errors[0] as Error).message).toBe('down');
  });
});

describe('messageTokens', () => {
  it("counts a file part by its size, not by its base64's characters", () => {
    const bytes = new Uint8Array(100 * 1024);
    const url = new URL(`data:application/pdf;base64,${Buffer.from(bytes).toString('base64')}`);
    const asUrl: ModelMessage = {
      role: 'user',
      content: [{ type: 'file', mediaType: 'application/pdf', filename: 'a.pdf', data: { type: 'url', url } }],
    };
    const asBytes: ModelMessage = {
      role: 'user',
      content: [{ type: 'file', mediaType: 'application/pdf', filename: 'a.pdf', data: bytes }],
    };
    expect(messageTokens(asUrl)).toBeGreaterThan(2_000);
    expect(messageTokens(asUrl)).toBeLessThan(2_100);
    expect(messageTokens(asBytes)).toBe(messageTokens(asUrl));
  });
});
