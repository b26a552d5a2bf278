/**
 * What a secret's name and value may be, for the config check (server/egress/config.ts), the store and the run.
 * Browser-safe: no Node imports.
 */

/** A secret's name as a script would see it in its environment. */
export const SECRET_NAME = /^[A-Z_][A-Z0-9_]{0,63}$/;

/**
 * Shorter values are refused: redacting every occurrence of a 4-character string in a run's output would blank out
 * ordinary words, and a value that short is no secret anyway.
 */
export const MIN_SECRET_LENGTH = 8;
/** A token, a key or a PEM block fits; a file does not belong here. */
export const MAX_SECRET_LENGTH = 16 * 1024;

/** A config value is only ever `${env:NAME}`: the value itself is never written in the config file. */
const ENV_REFERENCE = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** The environment variable a config value names (`${env:NAME}` -> `NAME`), or null when it is anything else. */
export function referencedVariable(configValue: string): string | null {
  return ENV_REFERENCE.exec(configValue.trim())?.[1] ?? null;
}

/** Why a value cannot be a secret's, as a sentence naming the secret (never the value); null when it can. */
export function valueProblem(name: string, value: string): string | null {
  if (value.length < MIN_SECRET_LENGTH) {
    return `${name} is refused: its value is shorter than ${MIN_SECRET_LENGTH} characters, too short to keep out of a chat`;
  }
  if (value.length > MAX_SECRET_LENGTH) return `${name} is refused: its value is longer than 16 KB`;
  return null;
}
