/**
 * Building blocks of the config schemas (server/config.ts, server/sandbox/config.ts), in zod/mini: the same checks
 * and messages as zod, but tree-shakable. The CLI loads the config on every `list` and `match`, where the full zod
 * would be much of the start-up time; zod/mini with its English messages is a fraction of it.
 */
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

// zod/mini has no messages of its own until a locale is configured (the full zod configures English on import).
z.config(en());

/** A positive integer, `fallback` when absent. */
export const count = (fallback: number) => z._default(z.int().check(z.positive()), fallback);

/** A non-empty string. */
export const text = () => z.string().check(z.minLength(1));
