/**
 * A bubblewrap run's way out (`SandboxRequest.egress`). The run keeps `--unshare-net`: its only way out is the run's
 * own proxy, whose Unix socket is bound in, reached through a forwarder on the sandbox's loopback. Layout inside:
 *
 *   /run/skillchat/egress.sock             the run's proxy (egress/proxy.ts), bound from `egress.socket`
 *   127.0.0.1:3128                         <runtime>/egress/forward.py, started by the prologue, relaying to it
 *   /etc/ssl/certs/ca-certificates.crt     `egress.trustBundle` (ro): OpenSSL's default file (curl, Python ssl,
 *                                          Debian's pip), and over the runtime's certifi/cacert.pem (requests, httpx)
 *   /etc/ssl/certs/skillchat-ca.pem        `egress.ca` (ro): the skillchat CA alone
 *
 * and the proxy and CA variables (EGRESS_ENV). Node 20's fetch ignores proxy variables, so NODE_OPTIONS loads
 * <runtime>/egress/node-preload.cjs, which puts undici 7's EnvHttpProxyAgent in its place. Secret variables
 * (`egress.secretEnv`) never go on bwrap's command line, which every host user can read in /proc/<pid>/cmdline:
 * they reach bwrap as `--setenv` triples through `--args FD`, a pipe only bwrap reads.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SandboxEgress } from '../egress/types';
import { RUNTIME_MOUNT } from '../toolchain/skills-runtime';

export const EGRESS_SOCKET = '/run/skillchat/egress.sock';
export const EGRESS_PORT = 3128;
const PROXY_URL = `http://127.0.0.1:${EGRESS_PORT}`;
const TRUST_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
const SKILLCHAT_CA = '/etc/ssl/certs/skillchat-ca.pem';
/**
 * Every run's Node: fetch parses HTTP with WebAssembly, whose default guard regions reserve more address space than
 * the run's RLIMIT_AS allows ("Cannot allocate Wasm memory"); bounds checks instead of the trap handler need none.
 */
export const NODE_BASE_OPTIONS = '--disable-wasm-trap-handler';
const ASSETS = `${RUNTIME_MOUNT}/egress`;

/**
 * Prologue lines (bwrap.ts runs them after the limits, before `exec "$@"`): with SKILLCHAT_EGRESS_FORWARDER set,
 * start the forwarder and wait until it says it listens, at most half a second. It is a child of the command once
 * bash execs, and dies with the sandbox's PID namespace. Its output goes nowhere: the run's streams are the
 * command's.
 */
export const FORWARDER_PROLOGUE = [
  'if [ -n "$SKILLCHAT_EGRESS_FORWARDER" ]; then',
  `  exec 3< <(exec /usr/bin/python3 -I -S "$SKILLCHAT_EGRESS_FORWARDER" ${EGRESS_SOCKET} ${EGRESS_PORT} </dev/null 2>/dev/null)`,
  '  read -r -t 0.5 -u 3 _ || true',
  '  exec 3<&-',
  'fi',
  'unset SKILLCHAT_EGRESS_FORWARDER',
];

/** The runtime's PyPI certifi bundle (requests and httpx read it, not SSL_CERT_FILE), as host and sandbox paths. */
function certifiBundle(runtimeDir: string): { host: string; target: string } | null {
  const lib = path.join(/*turbopackIgnore: true*/ runtimeDir, 'python', 'lib');
  let versions: string[];
  try {
    versions = fs.readdirSync(/*turbopackIgnore: true*/ lib).filter((v) => v.startsWith('python3'));
  } catch {
    return null;
  }
  for (const version of versions) {
    const rel = path.posix.join('python', 'lib', version, 'site-packages', 'certifi', 'cacert.pem');
    const host = path.join(/*turbopackIgnore: true*/ runtimeDir, rel);
    if (fs.existsSync(/*turbopackIgnore: true*/ host)) return { host, target: `${RUNTIME_MOUNT}/${rel}` };
  }
  return null;
}

/**
 * The binds of a run with egress, after the runtime's own. `runtimeDir`: the runtime folder (its `egress/` holds
 * the forwarder); `mounted`: whether the whole runtime is bound (otherwise only its `egress/` is).
 */
export function egressMounts(egress: SandboxEgress, runtimeDir: string, mounted: boolean): string[] {
  const args = [
    // bwrap as root creates missing folders 0700; the sandbox uid must be able to walk them.
    ...['/etc/ssl', '/etc/ssl/certs', '/run', '/run/skillchat'].flatMap((d) => ['--perms', '0755', '--dir', d]),
    '--bind',
    egress.socket,
    EGRESS_SOCKET,
    '--ro-bind',
    egress.trustBundle,
    TRUST_BUNDLE,
    '--ro-bind',
    egress.ca,
    SKILLCHAT_CA,
  ];
  if (!mounted) args.push('--ro-bind', path.join(/*turbopackIgnore: true*/ runtimeDir, 'egress'), ASSETS);
  const certifi = mounted ? certifiBundle(runtimeDir) : null;
  if (certifi) args.push('--ro-bind', egress.trustBundle, certifi.target);
  return args;
}

/** The variables of a run with egress (none secret), over the sandbox's own. */
export function egressEnv(egress: SandboxEgress, runtimeMounted: boolean): Record<string, string> {
  const env: Record<string, string> = { SKILLCHAT_EGRESS_FORWARDER: `${ASSETS}/forward.py` };
  // curl reads only the lower-case http_proxy (httpoxy); Python and Node read both.
  for (const name of ['http_proxy', 'https_proxy', 'all_proxy']) {
    env[name] = PROXY_URL;
    env[name.toUpperCase()] = PROXY_URL;
  }
  // Servers a script starts inside the sandbox stay reachable; the host's loopback is not this one.
  env.no_proxy = env.NO_PROXY = 'localhost,127.0.0.1,::1';
  env.npm_config_proxy = env.npm_config_https_proxy = PROXY_URL;
  // npm_config_cafile replaces npm's CAs, so it gets the whole bundle, never the CA alone.
  for (const name of ['SSL_CERT_FILE', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'PIP_CERT', 'GIT_SSL_CAINFO']) {
    env[name] = TRUST_BUNDLE;
  }
  env.npm_config_cafile = TRUST_BUNDLE;
  // Added to Node's own roots: the whole bundle, so an upstream CA in network.trust is trusted too.
  env.NODE_EXTRA_CA_CERTS = TRUST_BUNDLE;
  if (runtimeMounted) env.NODE_OPTIONS = `${NODE_BASE_OPTIONS} --require ${ASSETS}/node-preload.cjs`;
  return { ...env, ...egress.env };
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * bwrap's `--args` input for the secret variables: `--setenv NAME VALUE` triples, NUL-separated. Null when there are
 * none. A name that is not a variable name, or a value with a NUL (neither fits an environment), is a bug upstream.
 */
export function secretEnvArgs(secretEnv: Readonly<Record<string, string>>): Buffer | null {
  const entries = Object.entries(secretEnv);
  if (entries.length === 0) return null;
  const parts: string[] = [];
  for (const [name, value] of entries) {
    if (!NAME.test(name)) throw new Error(`secret variable name ${JSON.stringify(name)} is not a variable name`);
    if (value.includes('\0')) throw new Error(`secret variable ${name} holds a NUL character`);
    parts.push('--setenv', name, value);
  }
  return Buffer.from(`${parts.join('\0')}\0`, 'utf8');
}
