/**
 * A person allowed the shell, on a machine where no sandbox can run (bubblewrap missing): the turn tells the model
 * why and how to fix it (the `code_cannot_run` line), and the answer passes that on instead of only saying the tool
 * is absent. The backend that cannot run is a stand-in whose probe says what bubblewrap's says when it is missing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offlineTurnDeps, runTurnToEnd } from '../../test/turn-deps';
import { type Database, openDb, sqliteDatabase } from '../db';
import { replaceSandboxBackend } from '../sandbox/select';
import { createDbChatStore } from './db-store';

const REASON = 'bubblewrap is not installed, so no code runs: as root, apt-get install -y bubblewrap';

let tmp: string;
let db: Database;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-no-sandbox-'));
  db = sqliteDatabase(openDb(path.join(tmp, 'db.sqlite')));
  replaceSandboxBackend(() => ({
    name: 'missing-in-test',
    label: 'a sandbox that is not installed',
    probe: async () => ({ ok: false, reason: REASON }),
    run: async () => {
      throw new Error('a backend whose probe failed is never run');
    },
  }));
});

afterAll(() => {
  replaceSandboxBackend(null);
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('a turn where the shell is allowed but no sandbox runs', () => {
  it('the answer says no code can run, and what to install', async () => {
    const store = createDbChatStore(db);
    const deps = { ...offlineTurnDeps(store, tmp, 0), shell: 'allow' as const };
    await store.createChat({ id: 'no-sandbox' });
    const view = await runTurnToEnd('no-sandbox', { text: '$ ls -la' }, deps);
    const answer = view.messages.at(-1);
    const text = answer?.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('') ?? '';
    expect(text).toContain('I did not run `ls -la`: no code can run here.');
    expect(text).toContain('apt-get install -y bubblewrap');
  });

  it('with the shell off for the person, the line is not sent and the answer says the shell is not available', async () => {
    const store = createDbChatStore(db);
    const deps = { ...offlineTurnDeps(store, tmp, 0), shell: 'off' as const };
    await store.createChat({ id: 'shell-off' });
    const view = await runTurnToEnd('shell-off', { text: '$ ls -la' }, deps);
    const text =
      view.messages
        .at(-1)
        ?.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []))
        .join('') ?? '';
    expect(text).toContain('the shell is not available in this chat');
    expect(text).not.toContain('apt-get');
  });
});
