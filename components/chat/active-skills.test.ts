/** The header's skill chips: a skill activated in this session stays when its answer is regenerated away. */
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '@/server/chat/wire-types';
import { activeSkillsOf, keepSeenSkills } from './active-skills';

const activation = (name: string): ChatMessage => ({
  id: `a-${name}`,
  role: 'assistant',
  parts: [
    {
      type: 'tool-skills_activate',
      toolCallId: `call-${name}`,
      state: 'output-available',
      input: { name },
      output: { name, how: 'model' } as never,
    },
  ],
});

describe('keepSeenSkills', () => {
  it('keeps a skill whose activation card went with a regenerated answer, in order of first use', () => {
    const first = activeSkillsOf([], [activation('commit-message'), activation('csv-to-json')]);
    expect(first.map((s) => s.name)).toEqual(['commit-message', 'csv-to-json']);
    // Regenerate replaced the answers: the page no longer holds the cards.
    const after = activeSkillsOf([], [activation('csv-to-json')]);
    expect(keepSeenSkills(first, after).map((s) => s.name)).toEqual(['commit-message', 'csv-to-json']);
    expect(keepSeenSkills(first, []).map((s) => s.name)).toEqual(['commit-message', 'csv-to-json']);
  });

  it('adds new skills at the end and takes their newest details; merging again changes nothing', () => {
    const seen = [{ name: 'a' }, { name: 'b', how: 'model' as const }];
    const merged = keepSeenSkills(seen, [{ name: 'c' }, { name: 'b', how: 'explicit', count: 2 }]);
    expect(merged).toEqual([{ name: 'a' }, { name: 'b', how: 'explicit', count: 2 }, { name: 'c' }]);
    expect(keepSeenSkills(merged, [{ name: 'c' }, { name: 'b', how: 'explicit', count: 2 }])).toEqual(merged);
  });
});
