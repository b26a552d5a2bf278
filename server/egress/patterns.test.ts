import { describe, expect, it } from 'vitest';
import { formatTarget, type HostPattern, matches, parsePattern } from './patterns';

function pattern(text: string): HostPattern {
  const parsed = parsePattern(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.pattern;
}
const hits = (text: string, host: string, port: number) => matches(pattern(text), { host, port });

describe('host patterns', () => {
  it('a bare host means ports 443 and 80, nothing else', () => {
    expect(pattern('api.github.com').ports).toEqual([443, 80]);
    expect(hits('api.github.com', 'api.github.com', 443)).toBe(true);
    expect(hits('api.github.com', 'api.github.com', 80)).toBe(true);
    expect(hits('api.github.com', 'api.github.com', 8443)).toBe(false);
    expect(hits('api.github.com', 'uploads.github.com', 443)).toBe(false);
    expect(hits('api.github.com', 'x.api.github.com', 443)).toBe(false);
  });

  it('*.example.org matches its subdomains at any depth, not example.org itself', () => {
    expect(hits('*.example.org', 'a.example.org', 443)).toBe(true);
    expect(hits('*.example.org', 'a.b.example.org', 80)).toBe(true);
    expect(hits('*.example.org', 'example.org', 443)).toBe(false);
    expect(hits('*.example.org', 'badexample.org', 443)).toBe(false);
  });

  it('host:port covers that port only', () => {
    expect(hits('uploads.github.com:8443', 'uploads.github.com', 8443)).toBe(true);
    expect(hits('uploads.github.com:8443', 'uploads.github.com', 443)).toBe(false);
    expect(hits('*.example.org:8080', 'a.example.org', 8080)).toBe(true);
  });

  it('is case-insensitive and ignores a trailing dot on either side', () => {
    expect(hits('API.GitHub.com.', 'api.github.com', 443)).toBe(true);
    expect(hits('api.github.com', 'Api.GitHub.COM.', 443)).toBe(true);
    expect(pattern('*.Example.ORG.').host).toBe('example.org');
  });

  it('IP literals: IPv4, IPv6 in brackets with a port, bare IPv6, canonical forms', () => {
    expect(hits('127.0.0.1:8080', '127.0.0.1', 8080)).toBe(true);
    expect(hits('127.0.0.1', '127.0.0.1', 443)).toBe(true);
    expect(hits('[::1]:8080', '::1', 8080)).toBe(true);
    expect(hits('[::1]:8080', '::1', 8081)).toBe(false);
    expect(hits('[0:0:0:0:0:0:0:1]', '::1', 443)).toBe(true);
    expect(hits('::1', '::1', 80)).toBe(true);
    expect(hits('[2001:DB8::1]:443', '2001:db8::1', 443)).toBe(true);
    expect(hits('[::1]:8080', '[::1]', 8080)).toBe(true);
  });

  it('says what is wrong with a bad pattern', () => {
    const problem = (text: string) => {
      const parsed = parsePattern(text);
      return parsed.ok ? null : parsed.problem;
    };
    expect(problem('')).toBe('A host pattern is empty.');
    expect(problem('https://api.github.com')).toMatch(/not a host pattern/);
    expect(problem('api.github.com/path')).toMatch(/not a host pattern/);
    expect(problem('api.github.com:0')).toMatch(/port must be a number from 1 to 65535/);
    expect(problem('api.github.com:99999')).toMatch(/port must be/);
    expect(problem('api.github.com:https')).toMatch(/port must be/);
    expect(problem('a.*.example.org')).toMatch(/wildcard may only be the first label/);
    expect(problem('*')).toMatch(/wildcard may only be the first label/);
    expect(problem('*.org')).toMatch(/every name under a top-level domain/);
    expect(problem('*.10.0.0.1')).toMatch(/no subdomains/);
    expect(problem('0x7f.1')).toMatch(/four decimal numbers/);
    expect(problem('2130706433')).toMatch(/four decimal numbers/);
    expect(problem('[::1')).toMatch(/closing/);
    expect(problem('[nope]:80')).toMatch(/not an IPv6 address/);
    expect(problem('-bad-.com')).toMatch(/not a valid host name/);
    expect(problem('user@host.com')).toMatch(/not a host pattern/);
  });

  it('formats a target as people write it', () => {
    expect(formatTarget({ host: 'api.github.com', port: 443 })).toBe('api.github.com:443');
    expect(formatTarget({ host: '::1', port: 8080 })).toBe('[::1]:8080');
  });
});
