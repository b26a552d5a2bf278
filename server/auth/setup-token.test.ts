import { describe, expect, it } from 'vitest';
import { consumeSetupToken, createSetupToken, hashSetupToken, verifySetupToken } from './setup-token';

const now = new Date('2026-11-24T12:00:00Z');
const later = (ms: number) => new Date(now.getTime() + ms);

describe('first-admin setup token', () => {
  it('stores only a hash and accepts the token once', () => {
    const { token, record } = createSetupToken(now, 60_000);
    expect(record.tokenHash).toBe(hashSetupToken(token));
    expect(JSON.stringify(record)).not.toContain(token);
    expect(verifySetupToken(` ${token}\n`, record, later(1000))).toEqual({ ok: true });
    const used = consumeSetupToken(record, later(1000));
    expect(verifySetupToken(token, used, later(2000))).toMatchObject({ ok: false, code: 'consumed' });
  });

  it('refuses a wrong, malformed or expired token, and any token when none was issued', () => {
    const { token, record } = createSetupToken(now, 60_000);
    const other = createSetupToken(now).token;
    expect(verifySetupToken(other, record, now)).toMatchObject({ ok: false, code: 'wrong' });
    expect(verifySetupToken('abc', record, now)).toMatchObject({ ok: false, code: 'malformed' });
    expect(verifySetupToken(token, record, later(60_000))).toMatchObject({ ok: false, code: 'expired' });
    expect(verifySetupToken(token, null, now)).toMatchObject({ ok: false, code: 'wrong' });
  });

  it('issues a different token each time', () => {
    expect(createSetupToken(now).token).not.toBe(createSetupToken(now).token);
  });
});
