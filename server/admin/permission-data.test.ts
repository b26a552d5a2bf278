/**
 * The permissions part of /admin read from a real database: a grant says whether the skill's files still match it,
 * log rows link to their chat by title, and a deleted chat leaves the row without a link.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { skillContentHash } from '../access/content-hash';
import {
  addGrant,
  closeDb,
  deleteChat,
  ensureChat,
  openDb,
  recordDecision,
  recordScriptRun,
  sqliteDatabase,
} from '../db';
import type { Skill } from '../skills/types';
import { loadPermissionData } from './permissions';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-admin-perm-'));
const dbPath = path.join(tmp, 'db.sqlite');
const conn = openDb(dbPath);
const dir = path.join(tmp, 'skills', 'demo');
fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: demo\ndescription: d\n---\nbody\n');
const skill = {
  name: 'demo',
  dir,
  file: path.join(dir, 'SKILL.md'),
  root: path.dirname(dir),
} as Skill;

afterAll(() => {
  closeDb(conn);
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('loadPermissionData', () => {
  it('marks grants current or outdated, and links log rows to chats that still exist', async () => {
    const db = sqliteDatabase(conn);
    await ensureChat({ id: 'kept', title: 'Kept chat' }, db);
    await ensureChat({ id: 'gone', title: 'Deleted chat' }, db);
    const hash = await skillContentHash(skill);
    await addGrant({ kind: 'skill', key: 'demo' }, 'old-content', new Date(1000), db);
    await addGrant({ kind: 'skill', key: 'demo' }, hash, new Date(2000), db);
    await addGrant({ kind: 'skill', key: 'missing-skill' }, hash, new Date(3000), db);
    await recordDecision(
      {
        chatId: 'kept',
        subject: { kind: 'skill', key: 'demo' },
        decision: 'always',
        contentHash: hash,
        at: new Date(4000),
      },
      db,
    );
    await recordDecision(
      {
        chatId: 'gone',
        subject: { kind: 'skill', key: 'demo' },
        decision: 'denied',
        contentHash: hash,
        at: new Date(5000),
      },
      db,
    );
    await recordScriptRun(
      {
        chatId: 'kept',
        skillName: 'demo',
        script: 'scripts/x.sh',
        args: ['a'],
        exitCode: 0,
        timedOut: false,
        durationMs: 12.4,
        at: new Date(6000),
      },
      db,
    );
    await deleteChat('gone', db);

    const data = await loadPermissionData(db, [skill]);
    expect(data.grants.map((g) => [g.skillName, g.current, g.grantedAt])).toEqual([
      ['missing-skill', null, 3000],
      ['demo', true, 2000],
      ['demo', false, 1000],
    ]);
    expect(data.decisions.map((d) => [d.decision, d.chatId, d.chatTitle])).toEqual([
      ['denied', null, null],
      ['always', 'kept', 'Kept chat'],
    ]);
    expect(data.scriptRuns).toEqual([
      expect.objectContaining({
        script: 'scripts/x.sh',
        args: ['a'],
        exitCode: 0,
        durationMs: 12,
        chatId: 'kept',
        chatTitle: 'Kept chat',
        at: 6000,
      }),
    ]);
  });
});
