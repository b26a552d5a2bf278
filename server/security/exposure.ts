/**
 * Who may reach what, decided once per process from the environment and configuration.
 *
 * Exposure rule: the server counts as loopback-only when the address Next actually listens on is an IPv4 loopback
 * literal (127.x.x.x) and no allowed Host names another machine. Everything else counts as exposed: `0.0.0.0`, a LAN
 * address, `localhost` and `::1` (Next reports `-H 0.0.0.0` and no `-H` as `localhost`, and `-H ::` as `[::1]`, so
 * those names cannot be told apart from a wildcard bind), an unknown bind, or a loopback bind that a reverse proxy
 * serves under another name. The listen address comes from what Next itself records at `listen()`
 * (`__NEXT_PRIVATE_ORIGIN`), not from `SKILLCHAT_HOST`, so `next start -H 0.0.0.0` run by hand with a leftover
 * `SKILLCHAT_HOST=127.0.0.1` still counts as exposed. In doubt, accounts are required.
 */
import {
  type AllowedHost,
  isIPv4Loopback,
  isLoopbackHostname,
  LOOPBACK_HOSTS,
  type OriginRule,
  parseAllowedEntry,
  parseAllowedHost,
  parseHostHeader,
  type Scheme,
} from './hosts';

export interface ExposurePolicy {
  exposed: boolean;
  /** Why the server counts as exposed or not, for the admin page and logs. */
  exposure: string;
  /** Host headers served: loopback names, configured names, and this machine's addresses when exposed. */
  allowedHosts: AllowedHost[];
  /** The operator's `allowedHosts` alone, as Host rules. */
  configuredHosts: AllowedHost[];
  /** The same entries as origins (scheme, name, port) a browser in front of a reverse proxy may send in `Origin`. */
  configuredOrigins: OriginRule[];
  /** The scheme Next itself serves (`http` for `next start`): the scheme of an Origin naming the request's Host. */
  ownScheme: Scheme;
  /** Configuration problems worth a log line (an unparseable allowed host, ...). */
  warnings: string[];
}

export interface PolicyInput {
  env: Readonly<Record<string, string | undefined>>;
  /** `config.server.allowedHosts` (the config file and `SKILLCHAT_ALLOWED_HOSTS`). */
  allowedHosts: readonly string[];
  /** This machine's interface addresses (`os.networkInterfaces()`), allowed as Host when exposed. */
  interfaceAddresses?: readonly string[];
}

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]', '']);

/** The scheme Next reports it serves (`next start --experimental-https` is https); http when unknown. */
export function listenScheme(env: PolicyInput['env']): Scheme {
  return env.__NEXT_PRIVATE_ORIGIN?.toLowerCase().startsWith('https:') ? 'https' : 'http';
}

/** The hostname Next reports it listens on, or null when unknown. */
export function listenHostname(env: PolicyInput['env']): string | null {
  const origin = env.__NEXT_PRIVATE_ORIGIN;
  if (!origin) return null;
  try {
    return parseHostHeader(new URL(origin).host)?.hostname ?? null;
  } catch {
    return null;
  }
}

function bracketed(address: string): string {
  return address.includes(':') && !address.startsWith('[') ? `[${address}]` : address;
}

export function buildExposurePolicy(input: PolicyInput): ExposurePolicy {
  const warnings: string[] = [];
  const ownScheme = listenScheme(input.env);
  // A name listed without a scheme is reached as the operator serves it: over HTTPS when cookies are marked Secure
  // (which works only behind HTTPS), else as Next serves it. `https://name` in the list says so explicitly.
  const publicScheme: Scheme = input.env.SKILLCHAT_SECURE_COOKIES === '1' ? 'https' : ownScheme;
  const configuredHosts: AllowedHost[] = [];
  const configuredOrigins: OriginRule[] = [];
  for (const entry of input.allowedHosts) {
    const parsed = parseAllowedEntry(entry, publicScheme);
    if (parsed) {
      configuredHosts.push(parsed.host);
      configuredOrigins.push(parsed.origin);
    } else warnings.push(`allowedHosts: "${entry}" is not a host name, address or http(s) origin; ignored`);
  }

  const listen = listenHostname(input.env);
  const remoteNames = configuredHosts.filter((h) => !isLoopbackHostname(h.hostname));
  let exposed: boolean;
  let exposure: string;
  if (listen === null) {
    exposed = true;
    exposure = 'the listen address is unknown, so treated as exposed';
  } else if (!isIPv4Loopback(listen)) {
    exposed = true;
    exposure =
      listen === 'localhost' || listen === '[::1]'
        ? `listening as ${listen}, which Next also reports for wildcard binds, so treated as exposed (bind 127.0.0.1 for loopback only)`
        : `listening on ${listen}`;
  } else if (remoteNames.length > 0) {
    exposed = true;
    exposure = `listening on ${listen}, but allowedHosts names ${remoteNames.map((h) => h.hostname).join(', ')}`;
  } else {
    exposed = false;
    exposure = `listening on ${listen}`;
  }

  const allowedHosts: AllowedHost[] = [...LOOPBACK_HOSTS, ...configuredHosts];
  if (exposed) {
    // IP literals cannot be rebound by DNS: a browser sends `Host: 192.168.1.5` only when its address bar says so.
    const own = [input.env.SKILLCHAT_HOST ?? '', listen ?? '', ...(input.interfaceAddresses ?? [])];
    for (const address of own) {
      if (WILDCARDS.has(address)) continue;
      const parsed = parseAllowedHost(address);
      if (parsed && !allowedHosts.some((h) => h.hostname === parsed.hostname && h.port === null)) {
        allowedHosts.push({ hostname: parsed.hostname, port: null });
      }
    }
  } else if (listen !== null && !allowedHosts.some((h) => h.hostname === listen)) {
    allowedHosts.push({ hostname: bracketed(listen), port: null }); // e.g. 127.0.0.2
  }

  return { exposed, exposure, allowedHosts, configuredHosts, configuredOrigins, ownScheme, warnings };
}
