import { describe, expect, it } from 'vitest';
import {
  isHostAllowed,
  isLoopbackHostname,
  isOriginAllowed,
  LOOPBACK_HOSTS,
  type OriginRule,
  parseAllowedEntry,
  parseAllowedHost,
  parseHostHeader,
  parseOrigin,
} from './hosts';

describe('parseHostHeader', () => {
  it.each([
    ['localhost', { hostname: 'localhost', port: null }],
    ['localhost:3000', { hostname: 'localhost', port: '3000' }],
    ['LOCALHOST:3000', { hostname: 'localhost', port: '3000' }],
    ['localhost.:3000', { hostname: 'localhost', port: '3000' }],
    ['127.0.0.1:03000', { hostname: '127.0.0.1', port: '3000' }],
    ['[::1]:3000', { hostname: '[::1]', port: '3000' }],
    ['[::1]', { hostname: '[::1]', port: null }],
    ['chat_box.lan', { hostname: 'chat_box.lan', port: null }],
  ])('parses %s', (raw, expected) => {
    expect(parseHostHeader(raw)).toEqual(expected);
  });

  it.each([
    null,
    '',
    '::1',
    '[::1',
    '[::1]x',
    '[nothost]:80',
    'localhost:',
    'localhost:0',
    'localhost:70000',
    'localhost:30a',
    'a..b',
    '.localhost',
    'evil.com@localhost',
    'local host',
    'localhost/x',
    'localhost%00',
    'x'.repeat(400),
  ])('refuses %s', (raw) => {
    expect(parseHostHeader(raw)).toBeNull();
  });
});

describe('allowlist', () => {
  it('allows loopback names on any port and nothing else by default', () => {
    for (const raw of ['localhost', 'localhost:1', '127.0.0.1:3100', '[::1]:8080']) {
      expect(isHostAllowed(parseHostHeader(raw)!, LOOPBACK_HOSTS)).toBe(true);
    }
    for (const raw of ['evil.com', 'localhost.evil.com', '127.0.0.1.nip.io', '127.0.0.2', 'sub.localhost', '0.0.0.0']) {
      expect(isHostAllowed(parseHostHeader(raw)!, LOOPBACK_HOSTS)).toBe(false);
    }
  });

  it('matches a configured entry with a port on that port only', () => {
    const list = [parseAllowedHost('chat.lan:8443')!, parseAllowedHost('box.lan')!];
    expect(isHostAllowed(parseHostHeader('chat.lan:8443')!, list)).toBe(true);
    expect(isHostAllowed(parseHostHeader('chat.lan:3000')!, list)).toBe(false);
    expect(isHostAllowed(parseHostHeader('box.lan:3000')!, list)).toBe(true);
  });

  it('accepts bare IPv6 addresses in configuration', () => {
    expect(parseAllowedHost('fe80::1')).toEqual({ hostname: '[fe80::1]', port: null });
    expect(parseAllowedHost(' Chat.LAN ')).toEqual({ hostname: 'chat.lan', port: null });
    expect(parseAllowedHost('not a host')).toBeNull();
  });

  it('knows loopback hostnames', () => {
    expect(isLoopbackHostname('127.8.9.10')).toBe(true);
    expect(isLoopbackHostname('[::1]')).toBe(true);
    expect(isLoopbackHostname('localhost')).toBe(true);
    expect(isLoopbackHostname('128.0.0.1')).toBe(false);
    expect(isLoopbackHostname('127.0.0.1.evil')).toBe(false);
  });
});

describe('parseOrigin', () => {
  it('parses browser origins with the effective port', () => {
    expect(parseOrigin('http://127.0.0.1:3100')).toEqual({ scheme: 'http', hostname: '127.0.0.1', port: '3100' });
    expect(parseOrigin('https://Chat.Lan')).toEqual({ scheme: 'https', hostname: 'chat.lan', port: '443' });
    expect(parseOrigin('http://[::1]:3000')).toEqual({ scheme: 'http', hostname: '[::1]', port: '3000' });
  });

  it.each([
    null,
    '',
    'null',
    'file://',
    'chrome-extension://abc',
    'http://a:b@localhost',
    'http://localhost/x',
    'http://localhost/',
    'nonsense',
  ])('refuses %s', (raw) => {
    expect(parseOrigin(raw)).toBeNull();
  });
});

describe('isOriginAllowed', () => {
  const host = parseHostHeader('127.0.0.1:3100')!;
  const allowed = (origin: string, on = host, configured: OriginRule[] = []) =>
    isOriginAllowed(parseOrigin(origin)!, on, 'http', configured);

  it('accepts the same scheme, host and port', () => {
    expect(allowed('http://127.0.0.1:3100')).toBe(true);
  });

  it('refuses another scheme on the same host and port (red-team: https against an http server)', () => {
    expect(allowed('https://127.0.0.1:3100')).toBe(false);
    expect(isOriginAllowed(parseOrigin('http://127.0.0.1:3100')!, host, 'https', [])).toBe(false);
    expect(isOriginAllowed(parseOrigin('https://127.0.0.1:3100')!, host, 'https', [])).toBe(true);
  });

  it('refuses another port, another loopback name and foreign sites', () => {
    expect(allowed('http://127.0.0.1:8080')).toBe(false);
    expect(allowed('http://localhost:3100')).toBe(false);
    expect(allowed('https://evil.example')).toBe(false);
  });

  it("uses the server's scheme default when Host has no port", () => {
    const bare = parseHostHeader('chat.lan')!;
    expect(allowed('http://chat.lan', bare)).toBe(true);
    expect(allowed('https://chat.lan', bare)).toBe(false);
    expect(allowed('http://chat.lan:443', bare)).toBe(false);
    expect(allowed('http://chat.lan:81', bare)).toBe(false);
  });

  it('accepts a configured origin in front of a reverse proxy, with its scheme only', () => {
    const bare = parseAllowedEntry('chat.lan', 'https')!.origin;
    expect(allowed('https://chat.lan', host, [bare])).toBe(true);
    expect(allowed('http://chat.lan', host, [bare])).toBe(false);
    expect(allowed('https://evil.lan', host, [bare])).toBe(false);
    const spelled = parseAllowedEntry('https://chat.example.com', 'http')!.origin;
    expect(allowed('https://chat.example.com', host, [spelled])).toBe(true);
    expect(allowed('https://chat.example.com:8443', host, [spelled])).toBe(false);
    expect(allowed('http://chat.example.com', host, [spelled])).toBe(false);
  });
});

describe('parseAllowedEntry', () => {
  it('reads a bare name with the given scheme, and a URL with its own', () => {
    expect(parseAllowedEntry('chat.lan:8443', 'http')).toEqual({
      host: { hostname: 'chat.lan', port: '8443' },
      origin: { scheme: 'http', hostname: 'chat.lan', port: '8443' },
    });
    // The Host rule stays open on the port: a proxy forwards `Host: chat.example.com` without `:443`.
    expect(parseAllowedEntry('HTTPS://Chat.Example.com/', 'http')).toEqual({
      host: { hostname: 'chat.example.com', port: null },
      origin: { scheme: 'https', hostname: 'chat.example.com', port: '443' },
    });
    expect(parseAllowedEntry('ftp://chat.lan', 'http')).toBeNull();
    expect(parseAllowedEntry('https://chat.lan/path', 'http')).toBeNull();
  });
});
