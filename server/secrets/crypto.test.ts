import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { deriveSecretsKey, loadSecretsKey, OTHER_KEY_MESSAGE, openSecret, SecretKeyError, sealSecret } from './crypto';

const key = deriveSecretsKey('an auth secret of at least thirty-two characters');
const slot = { name: 'GITHUB_TOKEN', ownerId: '' };

describe('secrets at rest', () => {
  it('round-trips a value, with a fresh IV each time and no clear text in the row', () => {
    const a = sealSecret(key, slot, 'ghp_exampletoken123');
    const b = sealSecret(key, slot, 'ghp_exampletoken123');
    expect(openSecret(key, slot, a)).toBe('ghp_exampletoken123');
    expect(a.iv).not.toBe(b.iv);
    expect(a.ciphertext).not.toBe(b.ciphertext);
    expect(Buffer.from(a.iv, 'base64')).toHaveLength(12);
    expect(Buffer.from(a.tag, 'base64')).toHaveLength(16);
    expect(JSON.stringify(a)).not.toContain('exampletoken');
  });

  it('the key id is 8 bytes of hex, the same for the same input and different for another', () => {
    expect(key.id).toMatch(/^[0-9a-f]{16}$/);
    expect(deriveSecretsKey('an auth secret of at least thirty-two characters').id).toBe(key.id);
    expect(deriveSecretsKey('another auth secret, also thirty-two characters').id).not.toBe(key.id);
  });

  it('a row moved to another person or another name does not open', () => {
    const sealed = sealSecret(key, { name: 'GITHUB_TOKEN', ownerId: 'alice' }, 'alice-token-1234');
    expect(() => openSecret(key, { name: 'GITHUB_TOKEN', ownerId: 'bob' }, sealed)).toThrow(SecretKeyError);
    expect(() => openSecret(key, { name: 'GITHUB_TOKEN', ownerId: '' }, sealed)).toThrow(SecretKeyError);
    expect(() => openSecret(key, { name: 'OTHER_TOKEN', ownerId: 'alice' }, sealed)).toThrow(/altered or moved/);
  });

  it('a row written under another key says so, and never returns garbage', () => {
    const sealed = sealSecret(key, slot, 'ghp_exampletoken123');
    const other = deriveSecretsKey('another auth secret, also thirty-two characters');
    expect(() => openSecret(other, slot, sealed)).toThrow(OTHER_KEY_MESSAGE);
    expect(OTHER_KEY_MESSAGE).toContain('SKILLCHAT_AUTH_SECRET changed');
    // Even with the key id forged to match, the tag refuses it.
    expect(() => openSecret(other, slot, { ...sealed, keyId: other.id })).toThrow(SecretKeyError);
  });

  it('an altered ciphertext is refused', () => {
    const sealed = sealSecret(key, slot, 'ghp_exampletoken123');
    const bytes = Buffer.from(sealed.ciphertext, 'base64');
    bytes[0]! ^= 1;
    expect(() => openSecret(key, slot, { ...sealed, ciphertext: bytes.toString('base64') })).toThrow(SecretKeyError);
  });

  it('SKILLCHAT_SECRETS_KEY_FILE replaces the auth secret, and must hold 32 bytes', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-key-'));
    const file = path.join(dir, 'secrets.key');
    fs.writeFileSync(file, Buffer.alloc(32, 7));
    const fromFile = loadSecretsKey(
      () => {
        throw new Error('the auth secret is not read when a key file is set');
      },
      { SKILLCHAT_SECRETS_KEY_FILE: file },
    );
    expect(fromFile.id).toBe(deriveSecretsKey(Buffer.alloc(32, 7)).id);
    expect(loadSecretsKey(() => 'an auth secret of at least thirty-two characters', {}).id).toBe(key.id);
    fs.writeFileSync(file, 'too short');
    expect(() => loadSecretsKey(() => 'x', { SKILLCHAT_SECRETS_KEY_FILE: file })).toThrow(/exactly 32 random bytes/);
    expect(() => loadSecretsKey(() => 'x', { SKILLCHAT_SECRETS_KEY_FILE: path.join(dir, 'none') })).toThrow(
      /cannot be read \(ENOENT\)/,
    );
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
