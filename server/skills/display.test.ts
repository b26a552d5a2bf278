import { describe, expect, it } from 'vitest';
import { displayRoot } from './display';

const ctx = { appDir: '/srv/repo/apps/chat', home: '/home/ann' };

describe('displayRoot', () => {
  it('shows a root inside the app, or an ancestor skills folder of the walk, relative to the app', () => {
    expect(displayRoot('/srv/repo/apps/chat/.skills', ctx)).toBe('.skills');
    expect(displayRoot('/srv/repo/apps/chat', ctx)).toBe('.');
    expect(displayRoot('/srv/repo/.agents/skills', ctx)).toBe('../../.agents/skills');
    expect(displayRoot('/srv/repo/apps/.claude/skills', ctx)).toBe('../.claude/skills');
  });

  it('shows any other place out of the app by home or by its last two names, never as ../../tmp', () => {
    expect(displayRoot('/tmp/e2e-123/skills', ctx)).toBe('…/e2e-123/skills');
    expect(displayRoot('/srv/repo/team-skills', ctx)).toBe('…/repo/team-skills');
    expect(displayRoot('/home/ann/.skillchat/skills', ctx)).toBe('~/.skillchat/skills');
  });
});
