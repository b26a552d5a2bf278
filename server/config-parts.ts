/**
 * Building blocks of the config schemas (server/config.ts, server/sandbox/config.ts), in zod/mini: the same checks
 * and messages as zod, but tree-shakable. The CLI loads the config on every `list` and `match`; bundled, the full
 * zod costs ~100 ms to load there, zod/mini with its English messages ~12 ms (`node bin/build-cli.mjs`, then a
 * require() of each bundle, timed).
 */
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

// zod/mini has no messages of its own until a locale is configured (the full zod configures English on import).
z.config(en());

/** A positive integer, `fallback` when absent. */
export const count = (fallback: number) => z._default(z.int().check(z.positive()), fallback);

/** A non-empty string. */
export const text = () => z.string().check(z.minLength(1));
