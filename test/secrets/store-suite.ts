/**
 * The secret store on both databases: `server/secrets/store.test.ts` runs it on SQLite, `store.pg.test.ts` on a
 * scratch PostgreSQL. `open` gives a fresh, migrated, empty database for each test.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChat, deleteUserData, listChats } from '../../server/db/chats';
import type { Database } from '../../server/db/client';
import { getSecretRecord } from '../../server/db/secrets';
import { deriveSecretsKey, SecretKeyError } from '../../server/secrets/crypto';
import { resolveRunSecrets } from '../../server/secrets/resolve';
import { createSecretStore, type SecretStore } from '../../server/secrets/store';

export interface OpenedDatabase {
  d: Database;
  close(): Promise<void> | void;
}

const KEY = deriveSecretsKey('an auth secret of at least thirty-two characters');
const OTHER_KEY = deriveSecretsKey('another auth secret, also thirty-two characters');

export function describeSecretStore(dialect: string, open: () => Promise<OpenedDatabase>): void {
  describe(`secret store (${dialect})`, () => {
    let opened: OpenedDatabase;
    let store: SecretStore;
    beforeEach(async () => {
      opened = await open();
      store = createSecretStore(opened.d, () => KEY);
    });
    afterEach(async () => {
      await opened.close();
    });

    it('sets, replaces and clears the shared value; lists names and times, never values', async () => {
      expect(await store.get('GITHUB_TOKEN', null)).toBeNull();
      await store.set('GITHUB_TOKEN', null, '  ghp_first-value-1  ');
      expect(await store.get('GITHUB_TOKEN', null)).toBe('ghp_first-value-1');
      const [first] = await store.list(null);
      await store.set('GITHUB_TOKEN', null, 'ghp_second-value-2');
      expect(await store.get('GITHUB_TOKEN', null)).toBe('ghp_second-value-2');
      const listed = await store.list(null);
      expect(listed).toEqual([{ name: 'GITHUB_TOKEN', updatedAt: expect.any(Date), readable: true }]);
      expect(listed[0]!.updatedAt.getTime()).toBeGreaterThanOrEqual(first!.updatedAt.getTime());
      expect(JSON.stringify(listed)).not.toContain('ghp_');
      const row = await getSecretRecord('GITHUB_TOKEN', '', opened.d);
      expect(JSON.stringify(row)).not.toContain('second-value');
      expect(await store.clear('GITHUB_TOKEN', null)).toBe(true);
      expect(await store.clear('GITHUB_TOKEN', null)).toBe(false);
      expect(await store.get('GITHUB_TOKEN', null)).toBeNull();
    });

    it("each person has their own value: nobody reads the shared one or another's through theirs", async () => {
      await store.set('GITHUB_TOKEN', null, 'shared-token-000');
      await store.set('GITHUB_TOKEN', 'alice', 'alice-token-111');
      await store.set('GITHUB_TOKEN', 'bob', 'bob-token-2222');
      expect(await store.get('GITHUB_TOKEN', 'alice')).toBe('alice-token-111');
      expect(await store.get('GITHUB_TOKEN', 'bob')).toBe('bob-token-2222');
      expect(await store.get('GITHUB_TOKEN', 'carol')).toBeNull();
      expect((await store.list('alice')).map((s) => s.name)).toEqual(['GITHUB_TOKEN']);
      await store.clear('GITHUB_TOKEN', 'alice');
      expect(await store.get('GITHUB_TOKEN', 'bob')).toBe('bob-token-2222');
      expect(await store.get('GITHUB_TOKEN', null)).toBe('shared-token-000');
    });

    it('two members: each run gets its own person’s value, and one without is told to set theirs', async () => {
      const config = { GITHUB_TOKEN: { skills: ['github-*'], hosts: ['api.github.com'], personal: true } };
      await store.set('GITHUB_TOKEN', 'alice', 'alice-token-111');
      await store.set('GITHUB_TOKEN', 'bob', 'bob-token-2222');
      await store.set('GITHUB_TOKEN', null, 'shared-token-000');
      const run = (person: string) => resolveRunSecrets({ config, person, skills: ['github-issues'], env: {}, store });
      expect((await run('alice'))[0]!.value).toBe('alice-token-111');
      expect((await run('bob'))[0]!.value).toBe('bob-token-2222');
      expect(await run('carol')).toEqual([
        expect.objectContaining({ value: null, missing: 'needs your GITHUB_TOKEN: set it on /settings' }),
      ]);
    });

    it('a value stored under another key is reported, never returned as garbage', async () => {
      await store.set('GITHUB_TOKEN', null, 'ghp_written-before');
      const later = createSecretStore(opened.d, () => OTHER_KEY);
      await expect(later.get('GITHUB_TOKEN', null)).rejects.toThrow(SecretKeyError);
      await expect(later.get('GITHUB_TOKEN', null)).rejects.toThrow(/SKILLCHAT_AUTH_SECRET changed/);
      expect(await later.list(null)).toEqual([expect.objectContaining({ name: 'GITHUB_TOKEN', readable: false })]);
      await later.set('GITHUB_TOKEN', null, 'ghp_written-again');
      expect(await later.get('GITHUB_TOKEN', null)).toBe('ghp_written-again');
    });

    it('refuses a bad name and a value under 8 characters', async () => {
      await expect(store.set('github-token', null, 'long enough value')).rejects.toThrow(/A-Z, 0-9 and _/);
      await expect(store.set('GITHUB_TOKEN', null, 'short')).rejects.toThrow(/shorter than 8 characters/);
      await expect(store.set('GITHUB_TOKEN', null, '   abc     ')).rejects.toThrow(/shorter than 8/);
      expect(await store.list(null)).toEqual([]);
    });

    it("deleting a person deletes their secrets, and nobody else's", async () => {
      await createChat({ id: 'a1', title: 'Alice', userId: 'alice' }, opened.d);
      await store.set('GITHUB_TOKEN', 'alice', 'alice-token-111');
      await store.set('NPM_TOKEN', 'alice', 'alice-npm-token');
      await store.set('GITHUB_TOKEN', 'bob', 'bob-token-2222');
      await store.set('GITHUB_TOKEN', null, 'shared-token-000');
      await deleteUserData('alice', opened.d);
      expect(await listChats({ userId: 'alice' }, opened.d)).toEqual([]);
      expect(await store.list('alice')).toEqual([]);
      expect(await store.get('GITHUB_TOKEN', 'bob')).toBe('bob-token-2222');
      expect(await store.get('GITHUB_TOKEN', null)).toBe('shared-token-000');
      await expect(deleteUserData('', opened.d)).rejects.toThrow(/no user id/);
      expect(await store.get('GITHUB_TOKEN', null)).toBe('shared-token-000');
    });
  });
}
