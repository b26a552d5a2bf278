import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '@/server/chat/wire-types';
import { versionTurns } from './version-turns';

const user = (id: string): ChatMessage => ({ id, role: 'user', parts: [{ type: 'text', text: 'go' }] });
const ran = (id: string, files: { name: string; version?: string }[]): ChatMessage =>
  ({
    id,
    role: 'assistant',
    parts: [
      {
        type: 'tool-sandbox_exec',
        toolCallId: `call-${id}`,
        state: 'output-available',
        input: { command: 'x' },
        output: { files: files.map((f) => ({ size: 1, mediaType: 'text/plain', status: 'created', ...f })) },
      },
    ],
  }) as unknown as ChatMessage;

describe('versionTurns', () => {
  it("numbers each version by the person's message its answer follows", () => {
    const turns = versionTurns([
      user('u1'),
      ran('a1', [{ name: 'a.md', version: 'v-one' }, { name: 'b.md' }]),
      user('u2'),
      ran('a2', [{ name: 'a.md', version: 'v-two' }]),
    ]);
    expect([...turns]).toEqual([
      ['v-one', 1],
      ['v-two', 2],
    ]);
  });
});
