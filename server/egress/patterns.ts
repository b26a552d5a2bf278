/**
 * Host patterns, as a skill declares them (`metadata.network`) and the operator grants them (`network.skills`,
 * a secret's `hosts`): `api.github.com`, `*.example.org` (its subdomains, not example.org itself), `host:port`,
 * `127.0.0.1`, `[::1]:8080`. Without a port a pattern means ports 443 and 80. Names are compared in lower case
 * with a trailing dot ignored. Browser-safe: no Node imports.
 */
import type { EgressTarget } from './types';

export interface HostPattern {
  /** The pattern as written, trimmed. */
  text: string;
  /** Canonical host: lower case, no trailing dot, no brackets; for `*.example.org` the suffix `example.org`. */
  host: string;
  /** `*.host`: any name ending in `.host`, never `host` itself. */
  subdomains: boolean;
  /** The ports it covers. */
  ports: number[];
}

export type ParsedPattern = { ok: true; pattern: HostPattern } | { ok: false; problem: string };

/** The ports a pattern without one covers. */
export const DEFAULT_PORTS: readonly number[] = [443, 80];

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** A name's canonical form: lower case, without the trailing dot of a fully qualified name. */
export function canonicalName(host: string): string {
  const lower = host.trim().toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/** `::1` in the form URL parsing gives it (compressed, lower case), or null when it is not an IPv6 address. */
function canonicalIpv6(text: string): string | null {
  if (!text.includes(':')) return null;
  try {
    const hostname = new URL(`http://[${text}]/`).hostname;
    return hostname.slice(1, -1);
  } catch {
    return null;
  }
}

function parsePort(text: string, pattern: string): number | string {
  if (!/^\d{1,5}$/.test(text)) return `"${pattern}": the port must be a number from 1 to 65535.`;
  const port = Number(text);
  if (port < 1 || port > 65535) return `"${pattern}": the port must be a number from 1 to 65535.`;
  return port;
}

/** Reads one host pattern, or says in a sentence what is wrong with it. */
export function parsePattern(input: string): ParsedPattern {
  const text = input.trim();
  const fail = (problem: string): ParsedPattern => ({ ok: false, problem });
  if (text === '') return fail('A host pattern is empty.');
  if (/[/@?#\s]/.test(text) || text.includes('://')) {
    return fail(`"${text}" is not a host pattern: write a host name, optionally with :port (api.example.com:443).`);
  }

  let hostText = text;
  let portText: string | null = null;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close === -1) return fail(`"${text}": an IPv6 address in brackets needs its closing "]".`);
    hostText = text.slice(1, close);
    const rest = text.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) return fail(`"${text}": only ":port" may follow "]".`);
      portText = rest.slice(1);
    }
    if (canonicalIpv6(hostText) === null) return fail(`"${text}": "${hostText}" is not an IPv6 address.`);
  } else if ((text.match(/:/g) ?? []).length === 1) {
    [hostText, portText] = text.split(':') as [string, string];
  }

  let ports: number[] = [...DEFAULT_PORTS];
  if (portText !== null) {
    const port = parsePort(portText, text);
    if (typeof port === 'string') return fail(port);
    ports = [port];
  }

  const ipv6 = canonicalIpv6(hostText);
  if (ipv6 !== null) return { ok: true, pattern: { text, host: ipv6, subdomains: false, ports } };

  const name = canonicalName(hostText);
  if (name === '') return fail(`"${text}" has no host.`);
  const subdomains = name.startsWith('*.');
  const host = subdomains ? name.slice(2) : name;
  if (host.includes('*')) {
    return fail(`"${text}": a wildcard may only be the first label, as in *.example.org.`);
  }
  if (IPV4.test(host)) {
    if (subdomains) return fail(`"${text}": an IP address has no subdomains.`);
    return { ok: true, pattern: { text, host, subdomains, ports } };
  }
  if (/^[\d.]+$/.test(host) || /^0x/.test(host)) {
    return fail(`"${text}": write an IPv4 address as four decimal numbers (127.0.0.1).`);
  }
  const labels = host.split('.');
  if (host.length > 253 || !labels.every((label) => LABEL.test(label))) {
    return fail(`"${text}" is not a valid host name.`);
  }
  if (subdomains && labels.length < 2) {
    return fail(`"${text}" would match every name under a top-level domain; name the domain (*.example.org).`);
  }
  return { ok: true, pattern: { text, host, subdomains, ports } };
}

/** Whether the pattern covers the target (its host in any case, with or without a trailing dot). */
export function matches(pattern: HostPattern, target: EgressTarget): boolean {
  if (!pattern.ports.includes(target.port)) return false;
  let host = canonicalName(target.host);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return pattern.subdomains ? host.endsWith(`.${pattern.host}`) : host === pattern.host;
}

/** `host:port` as people write it: `api.github.com:443`, `[::1]:8080`. */
export function formatTarget(target: EgressTarget): string {
  return target.host.includes(':') ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
}

/** Parses a list, keeping the good patterns and a sentence for each bad one. */
export function parsePatterns(texts: readonly string[]): { patterns: HostPattern[]; problems: string[] } {
  const patterns: HostPattern[] = [];
  const problems: string[] = [];
  for (const text of texts) {
    const parsed = parsePattern(text);
    if (parsed.ok) patterns.push(parsed.pattern);
    else problems.push(parsed.problem);
  }
  return { patterns, problems };
}
