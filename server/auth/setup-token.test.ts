import { describe, expect, it } from 'vitest';
import { createSetupToken, SETUP_IDENTIFIER_PREFIX, setupTokenIdentifier } from './setup-token';

describe('first-admin setup token', () => {
  it('is stored under a hash that does not contain the token', () => {
    const token = createSetupToken();
    const identifier = setupTokenIdentifier(token);
    expect(identifier?.startsWith(SETUP_IDENTIFIER_PREFIX)).toBe(true);
    expect(identifier).not.toContain(token);
    expect(identifier).toHaveLength(SETUP_IDENTIFIER_PREFIX.length + 64);
  });

  it('forgives surrounding whitespace from a copy, nothing else', () => {
    const token = createSetupToken();
    expect(setupTokenIdentifier(` ${token}\n`)).toBe(setupTokenIdentifier(token));
    expect(setupTokenIdentifier(token.slice(1))).toBeNull();
    expect(setupTokenIdentifier(`${token.slice(1)}!`)).toBeNull();
    expect(setupTokenIdentifier('')).toBeNull();
  });

  it('differs every time', () => {
    const [a, b] = [createSetupToken(), createSetupToken()];
    expect(a).not.toBe(b);
    expect(setupTokenIdentifier(a)).not.toBe(setupTokenIdentifier(b));
  });
});
