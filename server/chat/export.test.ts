import { describe, expect, it } from 'vitest';
import { exportChat } from './export';
import type { ChatView } from './store';
import type { ChatMessage } from './wire-types';

const view: ChatView = {
  chat: { id: 'c1', title: 'Commit message: typo fix', createdAt: 1000, updatedAt: 2000, snippet: 'x' },
  activations: [{ skillName: 'commit-message', count: 1, firstAt: 1500, lastAt: 1500, lastHow: 'model' }],
  messages: [
    {
      id: 'u1',
      role: 'user',
      parts: [{ type: 'text', text: 'Write a commit message' }],
      metadata: { createdAt: Date.UTC(2026, 10, 24, 14, 5) },
    },
    {
      id: 'a1',
      role: 'assistant',
      metadata: { model: 'Offline model (built-in)', createdAt: Date.UTC(2026, 10, 24, 14, 6) },
      parts: [
        {
          type: 'tool-skills_activate',
          toolCallId: 't1',
          state: 'output-available',
          input: { name: 'commit-message' },
          output: {
            name: 'commit-message',
            description: 'd',
            location: '.skills/commit-message',
            instructions: '# Commit messages\n```sh\ngit diff\n```',
            resources: [],
            truncated: false,
            how: 'model' as const,
          },
        },
        {
          type: 'tool-skills_readResource',
          toolCallId: 't2',
          state: 'output-error',
          input: { name: 'commit-message', path: '../x' },
          errorText: 'Path leaves the skill folder',
        },
        { type: 'text', text: 'fix: correct a typo' },
      ],
    },
    // Tool parts as stored (JSON): the wire types are too narrow to write them out by hand here.
  ] as unknown as ChatMessage[],
};

describe('exportChat', () => {
  it('JSON: every part, tool calls and activations included, no search-only fields', () => {
    const file = exportChat(view, 'json', new Date(0));
    const data = JSON.parse(file.body);
    expect(file.fileName).toBe('Commit-message-typo-fix.json');
    expect(data.chat).toEqual({ id: 'c1', title: 'Commit message: typo fix', createdAt: 1000, updatedAt: 2000 });
    expect(data.activations[0].skillName).toBe('commit-message');
    expect(data.messages[1].parts.map((p: { type: string }) => p.type)).toEqual([
      'tool-skills_activate',
      'tool-skills_readResource',
      'text',
    ]);
  });

  it('Markdown: headings with times, text, tool cards with input and output or error', () => {
    const { body, contentType, fileName } = exportChat(view, 'md', new Date(0));
    expect(contentType).toMatch(/^text\/markdown/);
    expect(fileName).toBe('Commit-message-typo-fix.md');
    expect(body.startsWith('# Commit message: typo fix\n')).toBe(true);
    expect(body).toContain('- `commit-message` (model, 1×)');
    expect(body).toContain('## You · 2026-11-24 14:05 UTC\n\nWrite a commit message');
    expect(body).toContain('## Assistant (Offline model (built-in)) · 2026-11-24 14:06 UTC');
    expect(body).toContain('**Tool `skills.activate`** (output-available)');
    // The instructions hold a fence: the block around them must be longer so it stays one block.
    expect(body).toContain('````json');
    expect(body).toContain('Error: Path leaves the skill folder');
    expect(body.trimEnd().endsWith('fix: correct a typo')).toBe(true);
  });
});
