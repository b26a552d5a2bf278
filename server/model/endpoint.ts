/**
 * A model server added on /admin, as the network sees it: where it may be (`endpointProblem`), the fetch its turns go
 * through (`guardedFetch`), and "Test" (`listEndpointModels`): the model list of an OpenAI-compatible `/models`,
 * Anthropic's `/v1/models` or Ollama's `/api/tags`, or one sentence saying what went wrong. No sentence carries the
 * key, a URL's credentials or what the endpoint answered (an error page may echo the request).
 *
 * Where an endpoint may be: the admin is trusted and model servers often sit on this machine (Ollama, llama.cpp),
 * on the LAN (vLLM on 10.x) or on a tailnet (100.64.0.0/10), so loopback, private, carrier-grade NAT and unique
 * local addresses are allowed. What is refused is what no model server is and what a stolen admin session would
 * aim at: link-local addresses (169.254.0.0/16 holds the cloud metadata services, fe80::/10), the other metadata
 * addresses (Azure's 168.63.129.16, Alibaba's 100.100.100.200, AWS's fd00:ec2::254) and the special ranges
 * (multicast, documentation, reserved). The check runs when a connection is saved or tested and before every
 * request of a turn; a name is resolved each time, so a name that later resolves to a refused address is refused then.
 */
import net from 'node:net';
import { z } from 'zod';
import { blockedRange, canonicalHost, type Resolver, systemResolver } from '../egress/address';
import type { FetchLike } from './discovery';
import { displayBaseUrl } from './provider';

export const CONNECTION_KINDS = ['compatible', 'openai', 'anthropic', 'ollama'] as const;
export type ConnectionKind = (typeof CONNECTION_KINDS)[number];

/** Where each kind is when the admin gives no base URL (a compatible endpoint always needs one). */
export const DEFAULT_BASE_URLS: Record<ConnectionKind, string | null> = {
  compatible: null,
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
  ollama: 'http://127.0.0.1:11434',
};

/** Private address classes (egress/address.ts names) a model server may live in. */
const ALLOWED_CLASSES = new Set(['loopback', 'private', 'carrier-grade NAT', 'unique local (private)']);

/** Metadata services inside otherwise allowed ranges (IPv4-mapped IPv6 forms match too). */
const METADATA = new net.BlockList();
METADATA.addAddress('100.100.100.200', 'ipv4');
METADATA.addAddress('fd00:ec2::254', 'ipv6');

/** Why no model server may be at `address` ("a link-local (cloud metadata) address"), or null when it may. */
export function refusedAddressClass(address: string): string | null {
  const family = net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : null;
  if (family && METADATA.check(address, family)) return 'cloud metadata';
  const range = blockedRange(address);
  return range === null || ALLOWED_CLASSES.has(range) ? null : range;
}

/**
 * Why requests may not go to `baseUrl` now, as a sentence, or null when they may. A name that does not resolve is
 * no refusal here: the request then fails with its own sentence.
 */
export async function endpointProblem(baseUrl: string, resolve: Resolver = systemResolver): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return 'The base URL is not a URL (it starts with http:// or https://)';
  }
  const host = canonicalHost(url.host);
  if (!host) return 'The base URL has no host';
  const addresses = net.isIP(host)
    ? [host]
    : await resolve(host).then(
        (found) => found.map((a) => a.address),
        () => [],
      );
  for (const address of addresses) {
    const refused = refusedAddressClass(address);
    if (refused) {
      return `${url.hostname} is ${refused === 'cloud metadata' ? 'a cloud metadata' : `a ${refused}`} address: no model server is there, so skillchat does not send requests to it`;
    }
  }
  return null;
}

/** A fetch that refuses a request to a refused address (the check above, before each request of a turn). */
export function guardedFetch(resolve: Resolver = systemResolver, inner: FetchLike = fetch): typeof fetch {
  const guarded = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const problem = await endpointProblem(url, resolve);
    if (problem) throw new Error(problem);
    return inner(url, init);
  };
  return guarded as typeof fetch;
}

export type ListResult = { ok: true; models: string[] } | { ok: false; problem: string };

export interface ListOptions {
  timeoutMs?: number;
  fetch?: FetchLike;
  resolve?: Resolver;
}

const openAIList = z.object({ data: z.array(z.object({ id: z.string().min(1) }).loose()) }).loose();
const ollamaTags = z.object({ models: z.array(z.object({ name: z.string().min(1) }).loose()) }).loose();

/** `http://h:11434/v1/` -> `http://h:11434`: an Ollama is its origin, whichever of its URLs was pasted. */
export function ollamaOrigin(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

function request(kind: ConnectionKind, baseUrl: string, apiKey: string | undefined) {
  const base = baseUrl.replace(/\/+$/, '');
  if (kind === 'ollama') return { url: `${ollamaOrigin(base)}/api/tags`, headers: {} };
  if (kind === 'anthropic') {
    const headers: Record<string, string> = { 'anthropic-version': '2023-06-01' };
    if (apiKey) headers['x-api-key'] = apiKey;
    return { url: `${base}/models?limit=1000`, headers };
  }
  return { url: `${base}/models`, headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} };
}

/** The system error code of a failed fetch (`ECONNREFUSED`, `ENOTFOUND`, a TLS code), if any. */
function causeCode(error: unknown): string | undefined {
  let e: unknown = error;
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function unreachable(error: unknown, where: string, host: string, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `${where} did not answer within ${timeoutMs / 1000} s`;
  }
  const code = causeCode(error);
  if (code === 'ECONNREFUSED')
    return `Nothing answered at ${where}: the connection was refused (is the server running, on that port?)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `${host} does not resolve: check the host name of the base URL`;
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') {
    return `${where} cannot be reached from this server (${code})`;
  }
  if (code && /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) {
    return `${where}'s TLS certificate is not trusted by this server (${code})`;
  }
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : '';
  if (/redirect/i.test(cause)) return `${where} answered with a redirect: give the URL it redirects to`;
  return `${where} cannot be reached from this server${code ? ` (${code})` : ''}`;
}

/** What the endpoint's model list says, or why it could not be read, in a sentence without the key. */
export async function listEndpointModels(
  endpoint: { kind: ConnectionKind; baseUrl: string; apiKey?: string },
  options: ListOptions = {},
): Promise<ListResult> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const where = displayBaseUrl(endpoint.kind === 'ollama' ? ollamaOrigin(endpoint.baseUrl) : endpoint.baseUrl);
  const refused = await endpointProblem(endpoint.baseUrl, options.resolve);
  if (refused) return { ok: false, problem: refused };
  const { url, headers } = request(endpoint.kind, endpoint.baseUrl, endpoint.apiKey);
  const path = new URL(url).pathname;
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(url, {
      headers,
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    return { ok: false, problem: unreachable(error, where, new URL(url).hostname, timeoutMs) };
  }
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel();
    return {
      ok: false,
      problem: endpoint.apiKey
        ? `${where} refused the key (HTTP ${response.status}): check it, and that it may list models`
        : `${where} wants a key (HTTP ${response.status}): add one`,
    };
  }
  if (response.status === 404) {
    await response.body?.cancel();
    const hint =
      endpoint.kind === 'ollama'
        ? 'is this an Ollama (its address is like http://host:11434)?'
        : 'an OpenAI-compatible base URL usually ends in /v1';
    return { ok: false, problem: `${where} has no model list at ${path} (HTTP 404): ${hint}` };
  }
  if (!response.ok) {
    await response.body?.cancel();
    return { ok: false, problem: `${where} answered HTTP ${response.status} to ${path}` };
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    return { ok: false, problem: `${where} answered ${path}, but not with JSON: is this the API's base URL?` };
  }
  if (endpoint.kind === 'ollama') {
    const parsed = ollamaTags.safeParse(body);
    if (!parsed.success)
      return { ok: false, problem: `${where} answered ${path} with JSON that is not Ollama's model list` };
    return { ok: true, models: [...new Set(parsed.data.models.map((m) => m.name))].sort() };
  }
  const parsed = openAIList.safeParse(body);
  if (!parsed.success) {
    return {
      ok: false,
      problem: `${where} answered ${path} with JSON that is not a model list (no "data" array of ids)`,
    };
  }
  return { ok: true, models: [...new Set(parsed.data.data.map((m) => m.id))].sort() };
}
