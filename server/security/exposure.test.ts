import { describe, expect, it } from 'vitest';
import { buildExposurePolicy } from './exposure';
import { isHostAllowed, parseHostHeader } from './hosts';

function policy(
  env: Record<string, string | undefined>,
  allowedHosts: string[] = [],
  interfaceAddresses: string[] = [],
) {
  return buildExposurePolicy({ env, allowedHosts, interfaceAddresses });
}

function allows(p: ReturnType<typeof policy>, host: string): boolean {
  return isHostAllowed(parseHostHeader(host)!, p.allowedHosts);
}

describe('exposure', () => {
  it('is loopback-only when Next listens on 127.0.0.1', () => {
    const p = policy({ __NEXT_PRIVATE_ORIGIN: 'http://127.0.0.1:3000' });
    expect(p.exposed).toBe(false);
  });

  it.each([
    ['http://localhost:3000', '-H 0.0.0.0 and no -H are reported as localhost'],
    ['http://[::1]:3000', '-H :: is reported as [::1]'],
    ['http://192.168.1.5:3000', 'a LAN address'],
  ])('is exposed when Next reports %s (%s)', (origin) => {
    const p = policy({ __NEXT_PRIVATE_ORIGIN: origin });
    expect(p.exposed).toBe(true);
  });

  it('is exposed when the listen address is unknown, whatever SKILLCHAT_HOST says', () => {
    expect(policy({ SKILLCHAT_HOST: '127.0.0.1' }).exposed).toBe(true);
    expect(policy({ __NEXT_PRIVATE_ORIGIN: 'not a url', SKILLCHAT_HOST: '127.0.0.1' }).exposed).toBe(true);
  });

  it('trusts the actual listen address over a leftover SKILLCHAT_HOST', () => {
    const p = policy({ __NEXT_PRIVATE_ORIGIN: 'http://localhost:3000', SKILLCHAT_HOST: '127.0.0.1' });
    expect(p.exposed).toBe(true);
  });

  it('is exposed on a loopback bind when allowedHosts names another machine (a reverse proxy)', () => {
    const p = policy({ __NEXT_PRIVATE_ORIGIN: 'http://127.0.0.1:3000' }, ['chat.lan']);
    expect(p.exposed).toBe(true);
    expect(p.exposure).toContain('chat.lan');
    expect(policy({ __NEXT_PRIVATE_ORIGIN: 'http://127.0.0.1:3000' }, ['localhost']).exposed).toBe(false);
  });
});

describe('allowed hosts', () => {
  it('are the loopback names on a loopback bind', () => {
    const p = policy({ __NEXT_PRIVATE_ORIGIN: 'http://127.0.0.1:3000' }, [], ['192.168.1.5']);
    expect(allows(p, 'localhost:3000')).toBe(true);
    expect(allows(p, '[::1]:3000')).toBe(true);
    expect(allows(p, '192.168.1.5:3000')).toBe(false);
    expect(allows(p, 'evil.com')).toBe(false);
  });

  it('add the bind address and this machine’s addresses when exposed, never a wildcard', () => {
    const p = policy(
      { __NEXT_PRIVATE_ORIGIN: 'http://localhost:3000', SKILLCHAT_HOST: '0.0.0.0' },
      ['chat.lan'],
      ['192.168.1.5', 'fe80::1'],
    );
    expect(allows(p, '192.168.1.5:3000')).toBe(true);
    expect(allows(p, '[fe80::1]:3000')).toBe(true);
    expect(allows(p, 'chat.lan:3000')).toBe(true);
    expect(allows(p, '0.0.0.0:3000')).toBe(false);
    expect(allows(p, 'attacker.example:3000')).toBe(false);
  });

  it('include a concrete bind address', () => {
    const p = policy({ __NEXT_PRIVATE_ORIGIN: 'http://10.0.0.7:3000', SKILLCHAT_HOST: '10.0.0.7' });
    expect(allows(p, '10.0.0.7:3000')).toBe(true);
  });

  it('warn about entries that are not host names or origins', () => {
    const p = policy({ __NEXT_PRIVATE_ORIGIN: 'http://127.0.0.1:3000' }, ['http://chat.lan/path', 'ftp://chat.lan']);
    expect(p.warnings).toHaveLength(2);
    expect(p.configuredHosts).toEqual([]);
  });
});

describe('origins', () => {
  it('take the scheme Next serves; a listed name takes HTTPS only behind Secure cookies, unless it says its own', () => {
    const plain = policy({ __NEXT_PRIVATE_ORIGIN: 'http://localhost:3000' }, ['chat.lan', 'https://chat.example.com']);
    expect(plain.ownScheme).toBe('http');
    expect(plain.configuredOrigins).toEqual([
      { scheme: 'http', hostname: 'chat.lan', port: null },
      { scheme: 'https', hostname: 'chat.example.com', port: '443' },
    ]);
    const proxied = policy({ __NEXT_PRIVATE_ORIGIN: 'http://localhost:3000', SKILLCHAT_SECURE_COOKIES: '1' }, [
      'chat.lan',
    ]);
    expect(proxied.ownScheme).toBe('http');
    expect(proxied.configuredOrigins).toEqual([{ scheme: 'https', hostname: 'chat.lan', port: null }]);
    expect(policy({ __NEXT_PRIVATE_ORIGIN: 'https://localhost:3000' }).ownScheme).toBe('https');
  });
});
