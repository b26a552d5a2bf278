/**
 * The skill view a turn builds (skill-view.ts): what it derives from the skills and the access records is kept per
 * set of records, so people whose turns interleave do not rebuild each other's.
 */
import { describe, expect, it } from 'vitest';
import { createAccessResolver } from '../access/resolver';
import { skillRecord } from '../skills/testing';
import { buildSkillView, MAX_CHAT_CATALOGS } from './skill-view';

const root = '/srv/skills';

describe('the skill view', () => {
  const skills = ['demo-a', 'demo-b', 'demo-c'].map((name) => skillRecord(name, root));
  const resolver = createAccessResolver({
    roots: [{ path: root, scope: 'project', kind: 'configured' }],
    appDir: '/srv/app',
    permissions: { defaults: { configured: 'allow' } },
  });
  const viewFor = (switchedOff: string[], chatId: string) =>
    buildSkillView({
      source: { skills, access: resolver.resolveAll(skills, { person: 'someone', switchedOff: new Set(switchedOff) }) },
      config: { catalog: {} },
      chatId,
      relevanceText: 'hello',
    });

  it("keeps each person's view of the skills while their turns interleave", async () => {
    const alice = await viewFor(['demo-a'], 'alice-chat');
    const bob = await viewFor([], 'bob-chat');
    expect([...alice.usable.keys()]).toEqual(['demo-b', 'demo-c']);
    expect([...bob.usable.keys()]).toEqual(['demo-a', 'demo-b', 'demo-c']);
    // Alice's next turn, after Bob's: the same maps, not built again from 10,000 skills.
    const again = await viewFor(['demo-a'], 'alice-chat');
    expect(again.usable).toBe(alice.usable);
    expect(again.all).toBe(alice.all);
    expect(again.catalog).toBe(alice.catalog);
    expect((await viewFor([], 'bob-chat')).usable).toBe(bob.usable);
  });

  it('keeps a bounded number of chat catalogs, the least recently used going first', async () => {
    // A chat's catalog is built when it is not kept: that is when the use counts are read.
    const built: string[] = [];
    const view = (chatId: string) =>
      buildSkillView({
        source: {
          skills,
          access: resolver.resolveAll(skills),
          usage: () => {
            built.push(chatId);
            return new Map();
          },
        },
        config: { catalog: {} },
        chatId,
        relevanceText: 'hello',
      });
    await view('bounded-first');
    await view('bounded-recent');
    for (let i = 0; i < MAX_CHAT_CATALOGS - 1; i++) {
      await view(`bounded-${i}`);
      if (i === 10) await view('bounded-recent'); // used again: kept, and now among the most recent
    }
    built.length = 0;
    await view('bounded-recent');
    await view('bounded-first');
    expect(built).toEqual(['bounded-first']);
  });
});
