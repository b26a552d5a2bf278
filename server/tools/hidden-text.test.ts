/** Tool results carry skill text to the model: none of it may hold characters a person cannot see. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../config';
import { HIDDEN_CHARACTER, hiddenTextSkill } from '../skills/testing';
import { activateSkill } from './activate';
import type { SkillToolContext } from './context';
import { readResource } from './read-resource';

async function context(): Promise<SkillToolContext> {
  const skill = await hiddenTextSkill();
  return {
    skills: new Map([[skill.name, skill]]),
    access: new Map(),
    activated: new Set(),
    limits: DEFAULT_LIMITS,
    display: { appDir: '/app', home: '/home' },
    onActivated: () => {},
  };
}

describe('hidden characters in tool results', () => {
  it('skills_readResource returns the file without them', async () => {
    const out = await readResource(await context(), 'tag-description', 'references/notes.md');
    expect(out.content).toBe('Notes with an isolate and a wordjoiner.\n');
    expect(JSON.stringify(out)).not.toMatch(HIDDEN_CHARACTER);
  });

  it('skills_activate returns instructions and description without them', async () => {
    const out = await activateSkill(await context(), 'tag-description', 'model');
    expect(out.description).toBe('Formats dates.');
    expect(out.instructions).toContain('Use ISO 8601.esrever Keepit short.');
    expect(JSON.stringify(out)).not.toMatch(HIDDEN_CHARACTER);
  });
});
