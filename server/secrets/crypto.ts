/**
 * Secrets at rest: AES-256-GCM under a key derived with HKDF-SHA256 from the server's auth secret
 * (`SKILLCHAT_AUTH_SECRET`, or the generated `auth-secret` file), or from the 32 bytes of `SKILLCHAT_SECRETS_KEY_FILE`
 * when that is set. Each write has a random 12-byte IV; the additional data is `owner\0name` (`*` for the shared
 * value), so a row copied to another person or another name fails to open instead of serving the wrong secret.
 * Each row keeps a key id (the first 8 bytes of HMAC-SHA256(key, "key-id")), so a row written under another key
 * gets a clear error rather than a decryption failure that reads like tampering.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';

const INFO = 'skillchat/secrets/v1';
// A constant salt: the input is already a high-entropy secret, so HKDF needs none of its own (RFC 5869, 3.1).
const SALT = 'skillchat-secrets';
const KEY_BYTES = 32;

export interface SecretsKey {
  key: Buffer;
  /** Hex of the first 8 bytes of HMAC-SHA256(key, "key-id"), stored with each row. */
  id: string;
}

/** Where a value belongs: the shared one (`ownerId` empty) or one person's. */
export interface SecretSlot {
  name: string;
  ownerId: string;
}

/** What is stored of a value (base64 fields), as in the `secrets` table. */
export interface SealedSecret {
  ciphertext: string;
  iv: string;
  tag: string;
  keyId: string;
}

/** A stored value that cannot be opened: written under another key, or altered. The message names no value. */
export class SecretKeyError extends Error {
  override name = 'SecretKeyError';
}

export const OTHER_KEY_MESSAGE =
  'stored secrets were encrypted with another key: SKILLCHAT_AUTH_SECRET changed (or SKILLCHAT_SECRETS_KEY_FILE); set them again';

export function deriveSecretsKey(ikm: string | Uint8Array): SecretsKey {
  const key = Buffer.from(hkdfSync('sha256', ikm, SALT, INFO, KEY_BYTES));
  const id = createHmac('sha256', key).update('key-id').digest().subarray(0, 8).toString('hex');
  return { key, id };
}

/**
 * The key secrets are stored under: from `SKILLCHAT_SECRETS_KEY_FILE` (exactly 32 bytes, e.g.
 * `head -c 32 /dev/urandom > secrets.key`) when set, else from the auth secret, read only then.
 */
export function loadSecretsKey(
  authSecret: () => string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): SecretsKey {
  const file = env.SKILLCHAT_SECRETS_KEY_FILE?.trim();
  if (!file) return deriveSecretsKey(authSecret());
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    throw new Error(`SKILLCHAT_SECRETS_KEY_FILE cannot be read (${(error as NodeJS.ErrnoException).code})`);
  }
  if (bytes.length !== KEY_BYTES) {
    throw new Error(
      `SKILLCHAT_SECRETS_KEY_FILE must hold exactly 32 random bytes (head -c 32 /dev/urandom), not ${bytes.length}`,
    );
  }
  return deriveSecretsKey(bytes);
}

function aad({ name, ownerId }: SecretSlot): Buffer {
  return Buffer.from(`${ownerId || '*'}\0${name}`, 'utf8');
}

export function sealSecret(key: SecretsKey, slot: SecretSlot, value: string): SealedSecret {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  cipher.setAAD(aad(slot));
  const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return {
    ciphertext: ciphertext.toString('base64'),
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    keyId: key.id,
  };
}

/** The value, or a `SecretKeyError` (another key; or a row altered, or moved to another name or person). */
export function openSecret(key: SecretsKey, slot: SecretSlot, sealed: SealedSecret): string {
  if (sealed.keyId !== key.id) throw new SecretKeyError(OTHER_KEY_MESSAGE);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(aad(slot));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new SecretKeyError(`the stored ${slot.name} does not open: its row was altered or moved; set it again`);
  }
}
