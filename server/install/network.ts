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
import http from 'node:http';
import https from 'node:https';
import {
  bareHost,
  checkAddresses,
  type NetworkAllowance,
  pinnedLookup,
  type ResolvedAddress,
  type Resolver,
} from '../egress/address';
import { InstallError, problem } from './problems';

/** Re-exported for install's own tests, which predate the move to egress/. */
export { blockedRange, type Resolver } from '../egress/address';

export const MAX_REDIRECTS = 5;

/**
 * The address to connect to for `hostname`: every address it resolves to must be public unless allowed; the
 * first one is returned (and is the one connected to). Throws InstallError `address-not-allowed`. The admin who
 * typed the URL is told the address (the egress proxy, which answers a sandbox, names only its class).
 */
export async function checkHost(
  hostname: string,
  allowance: NetworkAllowance,
  resolve?: Resolver,
): Promise<ResolvedAddress> {
  const host = bareHost(hostname);
  const checked = await checkAddresses(host, allowance, resolve);
  if (checked.ok) return checked.address;
  if (checked.code === 'unresolved') {
    throw new InstallError('fetch', [
      problem('fetch-failed', `Could not resolve ${host}${checked.errno ? ` (${checked.errno})` : ''}`),
    ]);
  }
  const shown = checked.literal ? checked.address : `${host} (${checked.address})`;
  throw new InstallError('fetch', [
    problem(
      'address-not-allowed',
      `${shown} is a ${checked.range} address; installs reach public addresses only (install.allowPrivateNetworks or install.allowHosts allow others)`,
    ),
  ]);
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
