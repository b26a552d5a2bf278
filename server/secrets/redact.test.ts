import { describe, expect, it } from 'vitest';
import { createRedactor, secretForms } from './redact';

const TOKEN = 'ghp_A1b2C3d4/E5+f6 "é"';
const redactor = createRedactor([{ name: 'GITHUB_TOKEN', value: TOKEN }]);
const R = '[secret GITHUB_TOKEN]';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const b64url = (s: string) => Buffer.from(s, 'utf8').toString('base64url');

/** What must not survive redaction: the value and enough of any encoding of it to read it back. */
function leaks(text: string): string[] {
  const found: string[] = [];
  for (const form of secretForms(TOKEN)) if (text.includes(form)) found.push(form);
  return found;
}

describe('redaction', () => {
  const cases: Array<[string, string]> = [
    ['raw', `token=${TOKEN}!`],
    ['encodeURIComponent', `GET /?t=${encodeURIComponent(TOKEN)}&x=1`],
    ['form-encoded', `body: ${new URLSearchParams({ t: TOKEN }).toString()}`],
    ['form-encoded from encodeURIComponent', `t=${encodeURIComponent(TOKEN).replaceAll('%20', '+')}`],
    ['JSON-escaped', JSON.stringify({ token: TOKEN })],
    ['JSON with \\u escapes (Python json.dumps)', `{"token": "ghp_A1b2C3d4/E5+f6 \\"\\u00e9\\""}`],
    ['hex', `hex ${Buffer.from(TOKEN).toString('hex')} end`],
    ['HEX', `hex ${Buffer.from(TOKEN).toString('hex').toUpperCase()} end`],
    ['base64 alone', `b64 ${b64(TOKEN)}`],
    ['base64url alone, unpadded', `b64 ${b64url(TOKEN)}.`],
    ['Basic auth, the value first (alignment 0)', `Authorization: Basic ${b64(`${TOKEN}:x-oauth-basic`)}`],
    ['Basic auth after 3 bytes (alignment 0)', `Authorization: Basic ${b64(`me:${TOKEN}`)}`],
    ['Basic auth after 4 bytes (alignment 1)', `Authorization: Basic ${b64(`usr:${TOKEN}`)}`],
    ['Basic auth after 5 bytes (alignment 2)', `Authorization: Basic ${b64(`user:${TOKEN}`)}`],
    ['url-safe base64 inside', `jwt.${b64url(`{"u":"x","k":"${TOKEN}","z":1}`)}.sig`],
  ];
  it.each(cases)('catches the value %s', (_, text) => {
    expect(leaks(text).length).toBeGreaterThan(0);
    const out = redactor.redact(text);
    expect(out).toContain(R);
    expect(leaks(out)).toEqual([]);
    expect(out).not.toContain(TOKEN);
  });

  it('leaves at most a couple of characters of a base64 neighbour, never enough to read the value', () => {
    for (const prefix of ['', 'a:', 'ab:', 'abc:']) {
      const encoded = b64(`${prefix}${TOKEN}:tail`);
      const out = redactor.redact(encoded);
      const kept = out.replace(R, '');
      expect(kept.length).toBeLessThan(encoded.length - 20);
    }
  });

  it('leaves text without a secret alone, and names each secret', () => {
    const two = createRedactor([
      { name: 'A_TOKEN', value: 'aaaa-1111-secret' },
      { name: 'B_TOKEN', value: 'bbbb-2222-secret' },
    ]);
    expect(two.redact('nothing here')).toBe('nothing here');
    expect(two.redact('a=aaaa-1111-secret b=bbbb-2222-secret')).toBe('a=[secret A_TOKEN] b=[secret B_TOKEN]');
    expect(createRedactor([]).redact('as is')).toBe('as is');
    expect(createRedactor([{ name: 'UNSET', value: null }]).redact('as is')).toBe('as is');
  });

  it('a stream split at every offset gives what the whole text gives, with no value across a boundary', () => {
    const text = [
      `x ${TOKEN} y`,
      encodeURIComponent(TOKEN),
      b64(`user:${TOKEN}`),
      Buffer.from(TOKEN).toString('hex'),
      JSON.stringify(TOKEN),
      'trailing words',
    ].join(' | ');
    const whole = redactor.redact(text);
    expect(leaks(whole)).toEqual([]);
    for (let i = 0; i <= text.length; i++) {
      const s = redactor.stream();
      const out = s.push(text.slice(0, i)) + s.push(text.slice(i)) + s.flush();
      expect(out, `split at ${i}`).toBe(whole);
    }
  });

  it('a stream of one-character chunks, and of bytes split inside a multi-byte character', () => {
    const text = `start ${TOKEN} end`;
    const s = redactor.stream();
    let out = '';
    for (const c of text) out += s.push(c);
    expect(out + s.flush()).toBe(redactor.redact(text));

    const bytes = Buffer.from(text, 'utf8');
    const at = bytes.indexOf(Buffer.from('é')) + 1; // between the two bytes of é
    const b = redactor.stream();
    expect(b.push(bytes.subarray(0, at)) + b.push(bytes.subarray(at)) + b.flush()).toBe(`start ${R} end`);
  });

  it('a stream passes on what cannot be the start of a value without waiting for the end', () => {
    const s = redactor.stream();
    const long = 'x'.repeat(500);
    expect(s.push(long).length).toBeGreaterThan(400);
  });
});
