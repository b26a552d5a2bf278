/**
 * The address check the egress proxy and URL installs share: the ranges that are not public, this server's own
 * addresses, the operator's allowance, and hosts in the form a connection would use. Names are answered by a map;
 * nothing here opens a connection.
 */
import os from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  addressClass,
  blockedRange,
  canonicalHost,
  checkAddresses,
  describeClass,
  pinnedLookup,
  privateAllowance,
  type Resolver,
  SERVER_INTERFACE,
} from './address';

const NAMES: Record<string, string[]> = {
  'upstream.test': ['127.0.0.1'],
  'rebind.test': ['93.184.216.34', '127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'public.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
};

const resolve: Resolver = async (name) => {
  const found = NAMES[name];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('ranges beyond the install guard', () => {
  it.each([
    ['::7f00:1', 'IPv4-compatible (deprecated)'],
    ['::8.8.8.8', 'IPv4-compatible (deprecated)'],
    ['168.63.129.16', 'cloud metadata (Azure WireServer)'],
    ['::ffff:168.63.129.16', 'cloud metadata (Azure WireServer)'],
  ])('%s is %s', (address, range) => {
    expect(blockedRange(address)).toBe(range);
  });

  it('keeps the narrower classes of :: and ::1 inside ::/96', () => {
    expect(blockedRange('::')).toBe('unspecified');
    expect(blockedRange('::1')).toBe('loopback');
    expect(blockedRange('168.63.129.17')).toBeNull();
  });
});

describe("this server's own addresses", () => {
  it('are refused like loopback, even when public', () => {
    vi.spyOn(os, 'networkInterfaces').mockReturnValue({
      eth0: [
        {
          address: '198.51.99.7',
          netmask: '255.255.255.0',
          family: 'IPv4',
          mac: '02:00:00:00:00:01',
          internal: false,
          cidr: '198.51.99.7/24',
        },
      ],
    });
    expect(blockedRange('198.51.99.7')).toBeNull();
    expect(addressClass('198.51.99.7')).toBe(SERVER_INTERFACE);
    expect(addressClass('::ffff:198.51.99.7')).toBe(SERVER_INTERFACE);
    expect(addressClass('198.51.99.8')).toBeNull();
  });
});

describe('canonicalHost', () => {
  it.each([
    ['2130706433', '127.0.0.1'],
    ['2130706433:80', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0177.0.0.1:443', '127.0.0.1'],
    ['[::1]:443', '::1'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
    ['API.GitHub.com.:443', 'api.github.com'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['%31%32%37.0.0.1', '127.0.0.1'],
  ])('%s is %s', (authority, host) => {
    expect(canonicalHost(authority)).toBe(host);
  });

  it.each(['', 'user@127.0.0.1', 'a b', 'host/path', 'host?x', '[::1', 'a\\b'])('%j is not a host', (authority) => {
    expect(canonicalHost(authority)).toBeNull();
  });
});

describe('checkAddresses', () => {
  it('answers with the first address of a public name', async () => {
    expect(await checkAddresses('public.test', {}, resolve)).toEqual({
      ok: true,
      address: { address: '93.184.216.34', family: 4 },
    });
  });

  it.each([
    ['upstream.test', 'loopback', '127.0.0.1'],
    ['rebind.test', 'loopback', '127.0.0.1'],
    ['metadata.test', 'link-local (cloud metadata)', '169.254.169.254'],
  ])('refuses %s (%s) unless allowed', async (host, range, address) => {
    expect(await checkAddresses(host, {}, resolve)).toEqual({
      ok: false,
      code: 'private-address',
      literal: false,
      address,
      range,
    });
    expect(await checkAddresses(host, privateAllowance(['127.0.0.1/32', '169.254.169.254']), resolve)).toMatchObject({
      ok: true,
    });
  });

  it('takes an IP literal as its own address, without resolving it', async () => {
    const never: Resolver = async () => {
      throw new Error('resolved a literal');
    };
    expect(await checkAddresses('10.0.0.1', {}, never)).toMatchObject({ ok: false, literal: true, range: 'private' });
    expect(await checkAddresses('::ffff:7f00:1', {}, never)).toMatchObject({ ok: false, range: 'loopback' });
    expect(await checkAddresses('10.0.0.1', privateAllowance(['10.0.0.0/8']), never)).toEqual({
      ok: true,
      address: { address: '10.0.0.1', family: 4 },
    });
  });

  it('reports a name that does not resolve', async () => {
    expect(await checkAddresses('nowhere.test', {}, resolve)).toEqual({
      ok: false,
      code: 'unresolved',
      errno: 'ENOTFOUND',
    });
  });

  it('network.private allows addresses and ranges, never names', async () => {
    expect(privateAllowance(['upstream.test', '127.0.0.1', 'fd00::/8', 'x/8'])).toEqual({
      allowHosts: ['127.0.0.1', 'fd00::/8'],
    });
    expect(await checkAddresses('upstream.test', privateAllowance(['upstream.test']), resolve)).toMatchObject({
      ok: false,
    });
    expect(await checkAddresses('upstream.test', privateAllowance(['127.0.0.1/33']), resolve)).toMatchObject({
      ok: false,
    });
  });
});

describe('describeClass', () => {
  it('names the class with its article, never an address', () => {
    expect(describeClass('loopback')).toBe('a loopback address');
    expect(describeClass('IETF protocol')).toBe('an IETF protocol address');
    expect(describeClass(SERVER_INTERFACE)).toBe('a server interface address');
  });
});

describe('pinnedLookup', () => {
  it('answers with the checked address whatever the name, one or all', () => {
    const lookup = pinnedLookup({ address: '127.0.0.1', family: 4 });
    const one = vi.fn();
    const all = vi.fn();
    lookup('anything.test', {}, one);
    lookup('anything.test', { all: true }, all);
    expect(one).toHaveBeenCalledWith(null, '127.0.0.1', 4);
    expect(all).toHaveBeenCalledWith(null, [{ address: '127.0.0.1', family: 4 }]);
  });
});
