/**
 * Which secrets a run may use, with their values: each configured secret whose `skills` globs match a skill active
 * in the run's chat. The value is read now: `${env:NAME}` from the environment of this call, a stored one from the
 * store (the shared row, or for a `personal` secret the run's person's row and never anyone else's). A secret
 * without a usable value is still listed, with `value: null` and `missing`: a sentence for the run's refusal.
 */

import { skillGlob } from '../access/globs';
import type { SecretConfig, SecretsConfig } from '../egress/config';
import { SecretKeyError } from './crypto';
import type { SecretStore } from './store';
import { referencedVariable, valueProblem } from './values';

export interface RunSecret {
  name: string;
  /** The value, or null when there is none to use (then `missing` says why). */
  value: string | null;
  /** Why there is no value, as a sentence for the model and the record; names no value. */
  missing?: string;
  /** `Authorization: Bearer {}`: the proxy adds it to requests to `hosts`. Absent: the run gets an env var. */
  header?: string;
  /** Host patterns the header goes to (or that the run may send the env var to). */
  hosts: string[];
  /** The configured skill-name globs (for the record and the proxy's per-request check). */
  skills: string[];
  /** Each person's own value (their row only). */
  personal: boolean;
}

export interface ResolveRunSecretsInput {
  config: SecretsConfig;
  /** The person whose turn started the run; null when there is none (then personal secrets are missing). */
  person: string | null;
  /** The names of the skills active in the run's chat. */
  skills: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  store: Pick<SecretStore, 'get'>;
}

/** Whether any of `skills` matches any of a secret's globs. */
export function secretAppliesTo(secret: Pick<SecretConfig, 'skills'>, skills: readonly string[]): boolean {
  return secret.skills.some((glob) => skills.some(skillGlob(glob)));
}

export async function resolveRunSecrets(input: ResolveRunSecretsInput): Promise<RunSecret[]> {
  const out: RunSecret[] = [];
  for (const [name, secret] of Object.entries(input.config)) {
    if (!secretAppliesTo(secret, input.skills)) continue;
    const base: RunSecret = {
      name,
      value: null,
      ...(secret.header ? { header: secret.header } : {}),
      hosts: [...secret.hosts],
      skills: [...secret.skills],
      personal: secret.personal,
    };
    const found = await findValue(name, secret, input);
    const problem = 'value' in found ? valueProblem(name, found.value) : null;
    if ('value' in found && !problem) out.push({ ...base, value: found.value });
    else out.push({ ...base, missing: 'missing' in found ? found.missing : problem! });
  }
  return out;
}

type Found = { value: string } | { missing: string };

async function findValue(name: string, secret: SecretConfig, input: ResolveRunSecretsInput): Promise<Found> {
  if (secret.personal) {
    const ask = `needs your ${name}: set it on /settings`;
    if (input.person === null || input.person === '') return { missing: ask };
    return stored(name, input.person, input.store, ask);
  }
  if (secret.value !== undefined) {
    const variable = referencedVariable(secret.value);
    // The config check refuses a literal value; a config built in code could still hold one: never use it.
    if (variable === null) return { missing: `${name} is not set: its config value must be \${env:NAME}` };
    const value = input.env[variable];
    if (value === undefined || value.trim() === '') {
      return { missing: `needs ${name}: the server's environment variable ${variable} is not set` };
    }
    return { value: value.trim() };
  }
  return stored(name, null, input.store, `needs ${name}: an admin sets it on /admin`);
}

async function stored(
  name: string,
  owner: string | null,
  store: Pick<SecretStore, 'get'>,
  ask: string,
): Promise<Found> {
  try {
    const value = await store.get(name, owner);
    return value === null ? { missing: ask } : { value };
  } catch (error) {
    if (error instanceof SecretKeyError) return { missing: `${name} cannot be used: ${error.message}` };
    throw error;
  }
}
