/**
 * The state this process keeps once, whoever asks: one record on `globalThis`, each part under its owner's key.
 *
 * Next bundles every route module, `proxy.ts` and `instrumentation.ts` separately, each with its own copy of the
 * modules it imports, and its dev server evaluates them again after an edit. A module-level variable therefore
 * exists once per bundle and per reload: a second table of running turns that Stop would not see, a second queue
 * in front of the one SQLite connection, a second set of run slots. What must be one per process is kept here, by
 * the module that owns it (`processWide('sandbox', () => ...)`): the app itself (server/app.ts) and the few records
 * that code below it reaches without being handed the app. `server/process-wide.test.ts` fails on module-level
 * mutable state anywhere else, and on a second `globalThis` slot.
 */

const slot = globalThis as typeof globalThis & { __skillchat?: Map<string, unknown> };

/**
 * The process's record under `key`, made by `create` on the first call in this process (from any bundle). One key,
 * one owner and one type: the test lists every key and fails on a key used by two modules.
 */
export function processWide<T>(key: string, create: () => T): T {
  slot.__skillchat ??= new Map();
  const records = slot.__skillchat;
  if (!records.has(key)) records.set(key, create());
  return records.get(key) as T;
}
