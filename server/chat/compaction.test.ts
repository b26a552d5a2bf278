import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { compactHistory, messageTokens } from './compaction';

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
