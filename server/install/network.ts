/**
 * Which addresses an install from a URL may reach. An admin types the URL, but the server fetches it: a URL (or a
 * redirect, or a name that resolves) to loopback, the LAN or a cloud metadata address would make the installer a
 * way to reach what the server can and the admin's browser cannot (SSRF). So, unless the operator allows it
 * (`install.allowPrivateNetworks`, or `install.allowHosts` names the host, address or CIDR range):
 * - every host is resolved and every address it resolves to must be public (a name with one private address among
 *   public ones is refused: that is how a rebinding name looks);
 * - the connection goes to the address that was checked (a `lookup` that answers with it), so a second, different
 *   DNS answer between the check and the connect cannot move it;
 * - redirects are followed by hand, at most MAX_REDIRECTS, each one checked the same way and only to http(s).
 * Git is checked the same way before it runs (sources.ts), and pinned for https/http with `http.curloptResolve`.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { InstallError, problem } from './problems';

export interface NetworkAllowance {
  /** Every address may be reached (a private mirror, a test server on loopback). */
  allowPrivateNetworks?: boolean;
  /** Host names (exact, case-insensitive), addresses or CIDR ranges (`10.1.0.0/16`, `fd00::/8`) that may be reached. */
  allowHosts?: readonly string[];
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** How host names become addresses; tests pass their own (no test reaches DNS or anything beyond loopback). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const MAX_REDIRECTS = 5;

const systemResolver: Resolver = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

// Ranges that are not the public internet (IANA special-purpose registries), with the reason given in messages.
// Cloud metadata services live in two of them: 169.254.169.254 (link-local) and fd00:ec2::254 (unique local);
// Alibaba's 100.100.100.200 is in the carrier-grade NAT range.
const BLOCKED: Array<[string, number, 'ipv4' | 'ipv6', string]> = [
  ['0.0.0.0', 8, 'ipv4', '"this network"'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
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
  ['100::', 64, 'ipv6', 'discard'],
  ['2001:db8::', 32, 'ipv6', 'documentation'],
  ['fc00::', 7, 'ipv6', 'unique local (private)'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['fec0::', 10, 'ipv6', 'site-local'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];

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

/** Why `address` is not a public address ("loopback", "private", ...), or null when it is one. */
export function blockedRange(address: string): string | null {
  const family = net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : null;
  if (!family) return 'not an IP address';
  const v4 = family === 'ipv6' ? embeddedIPv4(address) : null;
  if (v4) return blockedRange(v4);
  return blocked.find((b) => b.family === family && b.list.check(address, family))?.reason ?? null;
}

function allowed(hostname: string, address: string, allowance: NetworkAllowance): boolean {
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
    if (prefix === undefined) list.addAddress(base, family);
    else list.addSubnet(base, Number(prefix), family);
    if (list.check(address, net.isIPv4(address) ? 'ipv4' : 'ipv6')) return true;
  }
  return false;
}

/** `[::1]` -> `::1`: URL host names keep IPv6 brackets, addresses do not. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * The address to connect to for `hostname`: every address it resolves to must be public unless allowed; the
 * first one is returned (and is the one connected to). Throws InstallError `address-not-allowed`.
 */
export async function checkHost(
  hostname: string,
  allowance: NetworkAllowance,
  resolve: Resolver = systemResolver,
): Promise<ResolvedAddress> {
  const host = bareHost(hostname);
  let addresses: ResolvedAddress[];
  const literal = net.isIP(host);
  if (literal) addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new InstallError('fetch', [
        problem('fetch-failed', `Could not resolve ${host}${code ? ` (${code})` : ''}`),
      ]);
    }
    if (addresses.length === 0) {
      throw new InstallError('fetch', [problem('fetch-failed', `Could not resolve ${host}`)]);
    }
  }
  for (const { address } of addresses) {
    const reason = blockedRange(address);
    if (reason && !allowed(host, address, allowance)) {
      const shown = literal ? address : `${host} (${address})`;
      throw new InstallError('fetch', [
        problem(
          'address-not-allowed',
          `${shown} is a ${reason} address; installs reach public addresses only (install.allowPrivateNetworks or install.allowHosts allow others)`,
        ),
      ]);
    }
  }
  return addresses[0]!;
}

/** A `lookup` for http(s).request that answers with the checked address, whatever the name: no second DNS answer. */
function pinnedLookup(pinned: ResolvedAddress): net.LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
}

export interface CheckedFetchOptions {
  maxBytes: number;
  allowance: NetworkAllowance;
  timeoutMs: number;
  resolve?: Resolver;
  /** Thrown when the body passes `maxBytes`. */
  tooBig: () => InstallError;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function get(url: URL, pinned: ResolvedAddress, signal: AbortSignal): Promise<http.IncomingMessage> {
  const request = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    // No agent: a pooled connection was made for some other check; `lookup` only applies to new ones.
    const req = request(url, { agent: false, lookup: pinnedLookup(pinned), signal, headers: { accept: '*/*' } });
    req.once('response', resolve);
    req.once('error', reject);
    req.end();
  });
}

/** The body at `url` (http or https), every hop checked and pinned (see the module comment), at most `maxBytes`. */
export async function fetchChecked(start: URL, options: CheckedFetchOptions): Promise<Buffer> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let url = start;
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new InstallError('fetch', [
        problem('fetch-failed', `Redirected to a ${url.protocol} URL; only http and https are followed`),
      ]);
    }
    const pinned = await checkHost(url.hostname, options.allowance, options.resolve);
    let response: http.IncomingMessage;
    try {
      response = await get(url, pinned, signal);
    } catch (error) {
      throw new InstallError('fetch', [
        problem('fetch-failed', `Could not fetch ${url.href}: ${(error as Error).message}`),
      ]);
    }
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (REDIRECTS.has(status) && location) {
      response.resume();
      if (hop >= MAX_REDIRECTS) {
        throw new InstallError('fetch', [
          problem('too-many-redirects', `${start.href} redirects more than ${MAX_REDIRECTS} times`),
        ]);
      }
      try {
        url = new URL(location, url);
      } catch {
        throw new InstallError('fetch', [problem('fetch-failed', `${url.href} redirects to an invalid URL`)]);
      }
      continue;
    }
    if (status < 200 || status > 299) {
      response.resume();
      throw new InstallError('fetch', [problem('fetch-failed', `${url.href} answered ${status}`)]);
    }
    return readCapped(response, options);
  }
}

async function readCapped(response: http.IncomingMessage, options: CheckedFetchOptions): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of response) {
      total += (chunk as Buffer).length;
      if (total > options.maxBytes) {
        response.destroy();
        throw options.tooBig();
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof InstallError) throw error;
    throw new InstallError('fetch', [problem('fetch-failed', `The download failed: ${(error as Error).message}`)]);
  }
  return Buffer.concat(chunks);
}
