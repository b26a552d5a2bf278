/** A person's standing shell grants: listed for that person only, and revoked by that person only. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { consentStoreOn } from '../chat/db-store';
import { closeDb, hasGrant, openDb, sqliteDatabase } from '../db';
import { revokeStandingGrant, standingShellGrants } from './standing';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-standing-'));
const conn = openDb(path.join(tmp, 'db.sqlite'));
afterAll(() => {
  closeDb(conn);
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('standing shell grants', () => {
  it("are the person's own: listed and revoked by them alone, and never a grant for everyone", async () => {
    const db = sqliteDatabase(conn);
    const ann = consentStoreOn(db, 'ann');
    await ann.addGrant({ kind: 'shell-prefix', prefix: 'soffice' }, 'soffice');
    expect(await ann.personalGrants('shell-prefix')).toEqual([{ kind: 'shell-prefix', prefix: 'soffice' }]);
    expect(await consentStoreOn(db, 'bob').personalGrants('shell-prefix')).toEqual([]);
    expect(await hasGrant({ kind: 'shell-prefix', key: 'soffice' }, 'soffice', db)).toBe(false);

    const [grant] = await standingShellGrants(db, 'ann');
    expect(grant).toMatchObject({ prefix: 'soffice' });
    await expect(revokeStandingGrant(db, 'bob', String(grant!.id))).rejects.toMatchObject({ code: 'not_found:grant' });
    await expect(revokeStandingGrant(db, 'ann', 'x')).rejects.toMatchObject({ code: 'bad_request:grant' });
    await revokeStandingGrant(db, 'ann', String(grant!.id));
    expect(await standingShellGrants(db, 'ann')).toEqual([]);
  });
});
