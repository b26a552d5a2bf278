/**
 * Which addresses the server may connect to on someone else's behalf: a URL install (install/network.ts) and a
 * run's egress proxy (proxy.ts). A name is resolved, and every address it resolves to must be public unless the
 * operator allows it (a name with one private address among public ones is refused: that is how a rebinding name
 * looks). The connection then goes to the checked address (`pinnedLookup`), so a second, different DNS answer
 * between the check and the connect cannot move it.
 */
import dns from 'node:dns';
import net from 'node:net';
import os from 'node:os';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** How host names become addresses; tests pass their own (no test reaches DNS or anything beyond loopback). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export interface NetworkAllowance {
  /** Every address may be reached (a private mirror, a test server on loopback). */
  allowPrivateNetworks?: boolean;
  /** Host names (exact, case-insensitive), addresses or CIDR ranges (`10.1.0.0/16`, `fd00::/8`) that may be reached. */
  allowHosts?: readonly string[];
}

// Ranges that are not the public internet (IANA special-purpose registries), with the class named in messages.
// Cloud metadata services live in two of them: 169.254.169.254 (link-local) and fd00:ec2::254 (unique local);
// Alibaba's 100.100.100.200 is in the carrier-grade NAT range. Azure's WireServer sits in public space.
const BLOCKED: Array<[string, number, 'ipv4' | 'ipv6', string]> = [
  ['0.0.0.0', 8, 'ipv4', '"this network"'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['168.63.129.16', 32, 'ipv4', 'cloud metadata (Azure WireServer)'],
  ['169.254.0.0', 16, 'ipv4', 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.0.0.0', 24, 'ipv4', 'IETF protocol'],
  ['192.0.2.0', 24, 'ipv4', 'documentation'],
  ['192.88.99.0', 24, 'ipv4', '6to4 relay'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['198.18.0.0', 15, 'ipv4', 'benchmarking'],
  ['198.51.100.0', 24, 'ipv4', 'documentation'],
  ['203.0.113.0', 24, 'ipv4', 'documentation'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['::', 96, 'ipv6', 'IPv4-compatible (deprecated)'],
  ['100::', 64, 'ipv6', 'discard'],
  ['2001:db8::', 32, 'ipv6', 'documentation'],
  ['fc00::', 7, 'ipv6', 'unique local (private)'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['fec0::', 10, 'ipv6', 'site-local'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];

/** The class of this server's own interface addresses: reaching them is reaching the server, as loopback is. */
export const SERVER_INTERFACE = 'server interface';

const blocked = BLOCKED.map(([address, prefix, family, reason]) => {
  const list = new net.BlockList();
  list.addSubnet(address, prefix, family);
  return { list, family, reason };
});

/** The IPv4 address an IPv6 address carries (IPv4-mapped, NAT64 64:ff9b::/96, 6to4 2002::/16), if any. */
function embeddedIPv4(address: string): string | null {
  const groups = expandIPv6(address);
  if (!groups) return null;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const zero = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zero(0, 5) && groups[5] === 0xffff) return v4(groups[6]!, groups[7]!); // ::ffff:a.b.c.d
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zero(2, 6)) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return v4(groups[1]!, groups[2]!);
  return null;
}

/** The eight 16-bit groups of an IPv6 address, or null when it is not one. */
function expandIPv6(address: string): number[] | null {
  if (net.isIPv6(address) === false) return null;
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, null];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === null ? [] : Array<string>(8 - left.length - right.length).fill('0');
  const groups = [...left, ...fill, ...right].map((g) => Number.parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : null;
}

function familyOf(address: string): 'ipv4' | 'ipv6' | null {
  return net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : null;
}

/** Why `address` is not a public address ("loopback", "private", ...), or null when it is one. */
export function blockedRange(address: string): string | null {
  const family = familyOf(address);
  if (!family) return 'not an IP address';
  const v4 = family === 'ipv6' ? embeddedIPv4(address) : null;
  if (v4) return blockedRange(v4);
  return blocked.find((b) => b.family === family && b.list.check(address, family))?.reason ?? null;
}

/** Whether `address` is one of this machine's own (it may listen on 0.0.0.0 with a public address). */
function isServerInterface(address: string): boolean {
  const own = new net.BlockList();
  for (const entries of Object.values(os.networkInterfaces())) {
    for (const entry of entries ?? []) {
      own.addAddress(entry.address.replace(/%.*$/, ''), entry.family === 'IPv6' ? 'ipv6' : 'ipv4');
    }
  }
  const v4 = familyOf(address) === 'ipv6' ? embeddedIPv4(address) : null;
  const plain = (v4 ?? address).replace(/%.*$/, '');
  const family = familyOf(plain);
  return family !== null && own.check(plain, family);
}

/** Why the server must not connect to `address` on someone's behalf: its range, or this server's own address. */
export function addressClass(address: string): string | null {
  return blockedRange(address) ?? (isServerInterface(address) ? SERVER_INTERFACE : null);
}

/** "a loopback address", "an IETF protocol address": a class as a sentence names it, never the address itself. */
export function describeClass(range: string): string {
  return `${/^[aeiou]/i.test(range) ? 'an' : 'a'} ${range} address`;
}

export function isAllowed(hostname: string, address: string, allowance: NetworkAllowance): boolean {
  if (allowance.allowPrivateNetworks) return true;
  const host = hostname.toLowerCase().replace(/\.$/, '');
  for (const entry of allowance.allowHosts ?? []) {
    const [base, prefix] = entry.split('/');
    if (!base) continue;
    if (net.isIP(base) === 0) {
      if (base.toLowerCase().replace(/\.$/, '') === host) return true;
      continue;
    }
    const family = net.isIPv4(base) ? 'ipv4' : 'ipv6';
    const list = new net.BlockList();
    try {
      if (prefix === undefined) list.addAddress(base, family);
      else list.addSubnet(base, Number(prefix), family);
    } catch {
      continue; // a malformed prefix allows nothing
    }
    const target = familyOf(address);
    if (target && list.check(address, target)) return true;
  }
  return false;
}

/**
 * `network.private` as an allowance: addresses and CIDR ranges only (a host name there would let any name that
 * resolves to a private address through, so names are ignored).
 */
export function privateAllowance(entries: readonly string[]): NetworkAllowance {
  return { allowHosts: entries.filter((e) => net.isIP(e.split('/')[0] ?? '') !== 0) };
}

/** `[::1]` -> `::1`: URL host names keep IPv6 brackets, addresses do not. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * The host of an authority (`host`, `host:port`, `[v6]:port`) in the form a connection would use, or null when it
 * is not a host: WHATWG URL parsing, so `2130706433` and `0x7f.1` become `127.0.0.1`, `[::ffff:127.0.0.1]` becomes
 * `::ffff:7f00:1`, names are lower-cased and punycoded, and one trailing dot goes. Without this, `2130706433` would be
 * a *name* for getaddrinfo, which answers 127.0.0.1 after the check saw no address at all.
 */
export function canonicalHost(authority: string): string | null {
  if (!authority || /[\s@/?#\\]/.test(authority)) return null;
  let hostname: string;
  try {
    hostname = new URL(`http://${authority}`).hostname;
  } catch {
    return null;
  }
  const host = bareHost(hostname).replace(/\.$/, '');
  return host === '' ? null : host;
}

export type AddressCheck =
  | { ok: true; address: ResolvedAddress }
  /** `range` is the class ("loopback"); `address` is for the operator's record, never for the one refused. */
  | { ok: false; code: 'private-address'; literal: boolean; address: string; range: string }
  | { ok: false; code: 'unresolved'; errno?: string };

/**
 * The address to connect to for `host` (a bare host: no brackets): every address it resolves to must be public
 * unless allowed, and the first one is the one to connect to. An IP literal is its own address.
 */
export async function checkAddresses(
  host: string,
  allowance: NetworkAllowance,
  resolve: Resolver = systemResolver,
): Promise<AddressCheck> {
  let addresses: ResolvedAddress[];
  const literal = net.isIP(host);
  if (literal) addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      const errno = (error as NodeJS.ErrnoException).code;
      return errno ? { ok: false, code: 'unresolved', errno } : { ok: false, code: 'unresolved' };
    }
    if (addresses.length === 0) return { ok: false, code: 'unresolved' };
  }
  for (const { address } of addresses) {
    const range = addressClass(address);
    if (range && !isAllowed(host, address, allowance)) {
      return { ok: false, code: 'private-address', literal: literal !== 0, address, range };
    }
  }
  return { ok: true, address: addresses[0]! };
}

/** A `lookup` for net/http(s) that answers with the checked address, whatever the name: no second DNS answer. */
export function pinnedLookup(pinned: ResolvedAddress): net.LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
}
