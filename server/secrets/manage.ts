/**
 * What /admin and /settings show of the configured secrets, and the rules for setting them: an admin sets the shared
 * value of a secret that has no `${env:NAME}`; each person sets their own value of a `personal` secret. Views carry
 * names, where a value comes from and when it was set, never a value.
 */
import type { SecretConfig, SecretsConfig } from '../egress/config';
import { AppError } from '../errors';
import type { SecretOwner, SecretStore } from './store';
import { referencedVariable } from './values';

/** How the value reaches a run: a header the proxy adds, or an environment variable. */
export type SecretDelivery = { kind: 'header'; header: string } | { kind: 'env' };

export interface AdminSecretView {
  name: string;
  skills: string[];
  hosts: string[];
  delivery: SecretDelivery;
  personal: boolean;
  /**
   * - `environment`: `${env:variable}`, read at each run (`set`: whether the variable is set now);
   * - `stored`: set on /admin, kept encrypted here (`set`, `updatedAt`);
   * - `personal`: each person sets their own on /settings.
   */
  source: 'environment' | 'stored' | 'personal';
  variable?: string;
  set: boolean;
  /** ISO time of the stored value. */
  updatedAt?: string;
  /** What is wrong with the value there is, as a sentence (written under another key). */
  problem?: string;
  /** Whether /admin may set or clear it (a shared secret with no `${env:...}`). */
  editable: boolean;
}

export interface PersonalSecretView {
  name: string;
  skills: string[];
  hosts: string[];
  delivery: SecretDelivery;
  set: boolean;
  updatedAt?: string;
  problem?: string;
}

const UNREADABLE = 'stored under another key (SKILLCHAT_AUTH_SECRET changed): set it again';

function delivery(secret: SecretConfig): SecretDelivery {
  return secret.header ? { kind: 'header', header: secret.header } : { kind: 'env' };
}

export async function adminSecretViews(
  config: SecretsConfig,
  store: Pick<SecretStore, 'list'>,
  env: Readonly<Record<string, string | undefined>>,
): Promise<AdminSecretView[]> {
  const stored = new Map((await store.list(null)).map((s) => [s.name, s]));
  return Object.entries(config).map(([name, secret]) => {
    const base = {
      name,
      skills: [...secret.skills],
      hosts: [...secret.hosts],
      delivery: delivery(secret),
      personal: secret.personal,
    };
    if (secret.personal) return { ...base, source: 'personal', set: false, editable: false };
    const variable = secret.value === undefined ? null : referencedVariable(secret.value);
    if (variable !== null) {
      return { ...base, source: 'environment', variable, set: Boolean(env[variable]?.trim()), editable: false };
    }
    const row = stored.get(name);
    return {
      ...base,
      source: 'stored',
      set: row !== undefined,
      ...(row ? { updatedAt: row.updatedAt.toISOString() } : {}),
      ...(row && !row.readable ? { problem: UNREADABLE } : {}),
      editable: true,
    };
  });
}

export async function personalSecretViews(
  config: SecretsConfig,
  store: Pick<SecretStore, 'list'>,
  person: string,
): Promise<PersonalSecretView[]> {
  const stored = new Map((await store.list(person)).map((s) => [s.name, s]));
  return Object.entries(config)
    .filter(([, secret]) => secret.personal)
    .map(([name, secret]) => {
      const row = stored.get(name);
      return {
        name,
        skills: [...secret.skills],
        hosts: [...secret.hosts],
        delivery: delivery(secret),
        set: row !== undefined,
        ...(row ? { updatedAt: row.updatedAt.toISOString() } : {}),
        ...(row && !row.readable ? { problem: UNREADABLE } : {}),
      };
    });
}

/** The secret an admin (owner null) or a person may write, or the 4xx saying why not. */
function writable(config: SecretsConfig, name: string, owner: SecretOwner): SecretConfig {
  const secret = Object.hasOwn(config, name) ? config[name] : undefined;
  if (!secret) throw new AppError('not_found:secret', `No secret ${name} is configured`);
  if (owner === null) {
    if (secret.personal) {
      throw new AppError('conflict:secret', `${name} is personal: each person sets their own on /settings`);
    }
    const variable = secret.value === undefined ? null : referencedVariable(secret.value);
    if (variable !== null) {
      throw new AppError(
        'conflict:secret',
        `${name} comes from the server's environment variable ${variable}: change it there`,
      );
    }
  } else if (!secret.personal) {
    throw new AppError('forbidden:secret', `${name} is shared: an admin sets it on /admin`);
  }
  return secret;
}

/** Sets (or replaces) a value: the shared one (`owner` null, for admins) or the person's own. */
export async function setSecretValue(
  config: SecretsConfig,
  store: Pick<SecretStore, 'set'>,
  owner: SecretOwner,
  name: string,
  value: string,
): Promise<void> {
  writable(config, name, owner);
  await store.set(name, owner, value);
}

/** Clears a value; true when there was one. */
export async function clearSecretValue(
  config: SecretsConfig,
  store: Pick<SecretStore, 'clear'>,
  owner: SecretOwner,
  name: string,
): Promise<boolean> {
  writable(config, name, owner);
  return store.clear(name, owner);
}
