/**
 * Host names as they arrive in `Host` and `Origin` headers, and the allowlist they are checked against. Pure string
 * work: the checks must behave the same in the proxy, in route handlers and in unit tests.
 */
import { isIPv4, isIPv6 } from 'node:net';

export interface HostPort {
  /** Lowercase, no trailing dot; IPv6 literals keep their brackets (`[::1]`), as in URLs and Host headers. */
  hostname: string;
  /** Digits only, or null when absent. */
  port: string | null;
}

/** An allowlist entry: a port of null matches any port. */
export type AllowedHost = HostPort;

/** Loopback names a browser on this machine uses; allowed on any port (the port is not part of the attack). */
export const LOOPBACK_HOSTS: readonly AllowedHost[] = [
  { hostname: 'localhost', port: null },
  { hostname: '127.0.0.1', port: null },
  { hostname: '[::1]', port: null },
];

// Letters, digits, dots, hyphens and underscores (some LAN names have them). Anything else (spaces, `@`, `/`, `%`)
// has no business in a Host header and is refused rather than normalised.
const NAME = /^[a-z0-9_](?:[a-z0-9_.-]{0,251}[a-z0-9_])?$/;

/**
 * Parses a `Host` header value (`name`, `name:port`, `1.2.3.4:port`, `[v6]:port`). Null when it is missing or
 * malformed: the caller refuses those outright.
 */
export function parseHostHeader(raw: string | null | undefined): HostPort | null {
  if (!raw || raw.length > 300) return null;
  const value = raw.toLowerCase();
  let hostname: string;
  let port: string | null = null;
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    if (close < 0) return null;
    hostname = value.slice(0, close + 1);
    const rest = value.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) return null;
      port = rest.slice(1);
    }
    if (!isIPv6(hostname.slice(1, -1))) return null;
  } else {
    const parts = value.split(':');
    if (parts.length > 2) return null; // A bare IPv6 literal without brackets is not a valid Host.
    hostname = parts[0] ?? '';
    if (parts.length === 2) port = parts[1] ?? '';
    // `localhost.` is the same DNS name as `localhost`; normalise so the allowlist needs one spelling.
    if (hostname.endsWith('.')) hostname = hostname.slice(0, -1);
    if (!NAME.test(hostname) || hostname.includes('..')) return null;
  }
  if (port !== null) {
    if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) return null;
    port = String(Number(port)); // `:03000` and `:3000` are the same port.
  }
  return { hostname, port };
}

/** Parses a configured allowlist entry (`chat.lan`, `chat.lan:8443`, `192.168.1.5`, `[fe80::1]`, `fe80::1`). */
export function parseAllowedHost(entry: string): AllowedHost | null {
  const trimmed = entry.trim();
  // People write IPv6 addresses without brackets in config files; accept that spelling for an entry with no port.
  if (isIPv6(trimmed)) return { hostname: `[${trimmed.toLowerCase()}]`, port: null };
  return parseHostHeader(trimmed);
}

export function isHostAllowed(host: HostPort, allowlist: readonly AllowedHost[]): boolean {
  return allowlist.some((a) => a.hostname === host.hostname && (a.port === null || a.port === host.port));
}

/** True for an IPv4 address in 127.0.0.0/8. */
export function isIPv4Loopback(hostname: string): boolean {
  return isIPv4(hostname) && hostname.startsWith('127.');
}

/** True for the loopback names of `LOOPBACK_HOSTS` and any 127.x.x.x address. */
export function isLoopbackHostname(hostname: string): boolean {
  return isIPv4Loopback(hostname) || LOOPBACK_HOSTS.some((h) => h.hostname === hostname);
}

export interface ParsedOrigin {
  scheme: 'http' | 'https';
  hostname: string;
  /** The effective port: explicit, else the scheme's default. */
  port: string;
}

/**
 * Parses an `Origin` header. Null for a missing header, `null` (sandboxed frames, privacy redirects), a non-HTTP
 * scheme or anything with a path, user info or query: a browser never sends those.
 */
export function parseOrigin(raw: string | null | undefined): ParsedOrigin | null {
  if (!raw || raw === 'null' || raw.length > 300) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) {
    return null;
  }
  if (raw.endsWith('/')) return null; // Browsers send `scheme://host[:port]` exactly.
  const scheme = url.protocol === 'https:' ? 'https' : 'http';
  const host = parseHostHeader(url.host);
  if (!host) return null;
  return { scheme, hostname: host.hostname, port: host.port ?? (scheme === 'https' ? '443' : '80') };
}

export type Scheme = ParsedOrigin['scheme'];

/** An origin the operator trusts in front of the app (a TLS reverse proxy's public name); a null port is any port. */
export interface OriginRule {
  scheme: Scheme;
  hostname: string;
  port: string | null;
}

function defaultPort(scheme: Scheme): string {
  return scheme === 'https' ? '443' : '80';
}

/**
 * A configured `allowedHosts` entry as a Host rule and an Origin rule. `https://chat.example.com[:port]` names the
 * scheme browsers use for it; a bare `chat.lan[:port]` takes `scheme` (the public one, see policy.ts). The Host rule
 * of a URL entry keeps the port open when none is written: a proxy forwards `Host: chat.example.com` without `:443`.
 */
export function parseAllowedEntry(entry: string, scheme: Scheme): { host: AllowedHost; origin: OriginRule } | null {
  const trimmed = entry.trim();
  const url = /^(https?):\/\/(.*?)\/?$/i.exec(trimmed);
  if (url) {
    const host = parseHostHeader(url[2]);
    if (!host) return null;
    const entryScheme: Scheme = url[1]!.toLowerCase() === 'https' ? 'https' : 'http';
    return {
      host,
      origin: { scheme: entryScheme, hostname: host.hostname, port: host.port ?? defaultPort(entryScheme) },
    };
  }
  const host = parseAllowedHost(trimmed);
  return host ? { host, origin: { scheme, ...host } } : null;
}

/**
 * Whether a state-changing request's `Origin` is this site: scheme, host and port all equal. Either the origin the
 * request was sent to, which is its `Host` (itself allowlisted) under the scheme the server itself speaks
 * (`ownScheme`; `https://127.0.0.1:3000` is another origin than the `http://127.0.0.1:3000` server), or an origin
 * the operator listed in `allowedHosts` (a TLS reverse proxy presents its own name and scheme). Another port on
 * localhost is another origin: a dev server on :8080 must not post to the chat on :3000, although SameSite cookies
 * would let it (SameSite ignores ports).
 */
export function isOriginAllowed(
  origin: ParsedOrigin,
  host: HostPort,
  ownScheme: Scheme,
  configured: readonly OriginRule[],
): boolean {
  if (
    origin.scheme === ownScheme &&
    origin.hostname === host.hostname &&
    origin.port === (host.port ?? defaultPort(ownScheme))
  ) {
    return true;
  }
  return configured.some(
    (a) => a.scheme === origin.scheme && a.hostname === origin.hostname && (a.port === null || a.port === origin.port),
  );
}

/** The `host[:port]` of an allowlist entry or Host, for messages. */
export function formatHost(host: HostPort): string {
  return host.port === null ? host.hostname : `${host.hostname}:${host.port}`;
}
