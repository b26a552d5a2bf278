/**
 * Secret values kept on this server, sealed (crypto.ts) in the `secrets` table: the shared value of a name (set on
 * /admin) and each person's own (set on /settings). Values go in and come out only here; listing gives names and
 * times. Whose value a call touches is its `owner` argument (null: the shared one): the routes pass the signed-in
 * person's id, so a person reaches only their own.
 */
import { type Database, deleteSecretRecord, getSecretRecord, listSecretRecords, upsertSecret } from '../db';
import { AppError } from '../errors';
import { openSecret, type SecretsKey, sealSecret } from './crypto';
import { SECRET_NAME, valueProblem } from './values';

/** null: the shared value; else a person's user id. */
export type SecretOwner = string | null;

export interface StoredSecret {
  name: string;
  updatedAt: Date;
  /** false when the row was written under another key (the auth secret changed): it must be set again. */
  readable: boolean;
}

export interface SecretStore {
  /** Stores (or replaces) a value; a 400 AppError for a bad name or a value under 8 characters. */
  set(name: string, owner: SecretOwner, value: string): Promise<void>;
  /** Removes a value; false when there was none. */
  clear(name: string, owner: SecretOwner): Promise<boolean>;
  /** The value, null when none is stored; a `SecretKeyError` when it was stored under another key. */
  get(name: string, owner: SecretOwner): Promise<string | null>;
  /** The owner's names with their times, never the values. */
  list(owner: SecretOwner): Promise<StoredSecret[]>;
}

function ownerId(owner: SecretOwner): string {
  if (owner === null) return '';
  if (owner === '') throw new Error('a person owning a secret has a non-empty id');
  return owner;
}

function checkName(name: string): void {
  if (!SECRET_NAME.test(name)) {
    throw new AppError('bad_request:secret', 'A secret name is A-Z, 0-9 and _, starting with a letter or _');
  }
}

/** `key` is read on first use (it may read the auth-secret file). */
export function createSecretStore(db: Database, key: () => SecretsKey): SecretStore {
  let loaded: SecretsKey | undefined;
  const theKey = () => {
    loaded ??= key();
    return loaded;
  };
  return {
    async set(name, owner, value) {
      checkName(name);
      const trimmed = value.trim();
      const problem = valueProblem(name, trimmed);
      if (problem) throw new AppError('bad_request:secret', `${problem}.`);
      const id = ownerId(owner);
      const sealed = sealSecret(theKey(), { name, ownerId: id }, trimmed);
      await upsertSecret({ name, ownerId: id, ...sealed, updatedAt: new Date() }, db);
    },
    clear(name, owner) {
      return deleteSecretRecord(name, ownerId(owner), db);
    },
    async get(name, owner) {
      const id = ownerId(owner);
      const row = await getSecretRecord(name, id, db);
      return row ? openSecret(theKey(), { name, ownerId: id }, row) : null;
    },
    async list(owner) {
      const rows = await listSecretRecords(ownerId(owner), db);
      const keyId = theKey().id;
      return rows.map((r) => ({ name: r.name, updatedAt: r.updatedAt, readable: r.keyId === keyId }));
    },
  };
}
