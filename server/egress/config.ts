/**
 * What the operator grants skills beyond their sandbox (`network` and `secrets` in skillchat.config.json). Kept
 * beside the egress proxy so `server/config.ts` only plugs the schemas in. A skill's own declaration
 * (`metadata.network`, `metadata.secrets`, declarations.ts) grants nothing: only these entries do.
 */
import path from 'node:path';
import * as z from 'zod/mini';
import { count, text } from '../config-parts';
import { referencedVariable, SECRET_NAME } from '../secrets/values';

export { SECRET_NAME };

const VALUE_RULE =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own `${env:NAME}` syntax
  'must be ${env:NAME} (the value itself never goes in the config file), or absent to set it on /admin';

export const networkConfigSchema = z.strictObject({
  /**
   * Skill-name glob -> host patterns it may reach (`api.github.com`, `*.example.org`, `host:port`; ports 443 and 80
   * when none is given). A run reaches a host only when a skill active in its chat is granted it.
   */
  skills: z._default(z.record(text(), z.array(text())), {}),
  /** Addresses or CIDR ranges that are not public but may be reached all the same (`127.0.0.1/32` for a test). */
  private: z._default(z.array(text()), []),
  /** PEM files of upstream CAs the proxy trusts besides the system's (a company CA, a test server's own). */
  trust: z._default(z.array(text()), []),
  /** Per run: bytes received, bytes sent, seconds of egress (from its proxy's opening), connections at once. */
  limits: z._default(
    z.strictObject({
      maxBytesIn: count(256 * 1024 * 1024),
      maxBytesOut: count(64 * 1024 * 1024),
      maxSeconds: count(300),
      maxConnections: count(64),
    }),
    { maxBytesIn: 256 * 1024 * 1024, maxBytesOut: 64 * 1024 * 1024, maxSeconds: 300, maxConnections: 64 },
  ),
});

export const secretConfigSchema = z
  .strictObject({
    /**
     * `${env:NAME}`: read from the server's environment at each run, never stored. Absent: set on /admin (or /settings).
     * Anything else is refused: a secret's value is never written in clear in the config file.
     */
    value: z.optional(
      text().check(
        z.refine((v) => referencedVariable(v) !== null, {
          message: VALUE_RULE,
        }),
      ),
    ),
    /** Skill-name globs whose runs may use it. */
    skills: z.array(text()),
    /** Host patterns the header is added to (`header`), or that the run may send it to. */
    hosts: z._default(z.array(text()), []),
    /** `Authorization: Bearer {}`: the proxy adds it to requests to `hosts`; without it the run gets an env var. */
    header: z.optional(text().check(z.refine((h) => /^[A-Za-z0-9-]+:\s*.*\{\}/.test(h), 'must be "Name: ...{}..."'))),
    /** Each person's own value (set on /settings); their runs use theirs, never another person's. */
    personal: z._default(z.boolean(), false),
  })
  .check(
    z.refine((s) => !(s.personal && s.value !== undefined), {
      message: 'a personal secret has no value in the config: each person sets theirs on /settings',
    }),
  );

export const secretsConfigSchema = z.record(
  text().check(z.refine((n) => SECRET_NAME.test(n), 'a secret name is A-Z, 0-9 and _, starting with a letter or _')),
  secretConfigSchema,
);

export type NetworkConfig = z.infer<typeof networkConfigSchema>;
export type SecretConfig = z.infer<typeof secretConfigSchema>;
export type SecretsConfig = Record<string, SecretConfig>;

export interface EgressConfig {
  network: NetworkConfig;
  secrets: SecretsConfig;
  /** `<data folder>/egress`: the runs' proxy sockets, the CA and the trust bundle. */
  dir: string;
}

/**
 * Whether runs get a proxy at all: an operator who grants nothing keeps every run sealed, as before. `installs`:
 * `runtime.installs` is `allow`, so every run reaches the package indexes through its proxy.
 */
export function egressConfigured(config: EgressConfig, installs = false): boolean {
  return installs || Object.keys(config.network.skills).length > 0 || Object.keys(config.secrets).length > 0;
}

/** Fills defaults; `trust` files are relative to the app folder. */
export function resolveEgressConfig(
  file: { network?: z.input<typeof networkConfigSchema>; secrets?: unknown },
  appDir: string,
  dataDir: string,
): EgressConfig {
  const network = networkConfigSchema.parse(file.network ?? {});
  network.trust = network.trust.map((t) => path.resolve(/*turbopackIgnore: true*/ appDir, t));
  return {
    network,
    secrets: secretsConfigSchema.parse(file.secrets ?? {}),
    dir: path.join(/*turbopackIgnore: true*/ dataDir, 'egress'),
  };
}
