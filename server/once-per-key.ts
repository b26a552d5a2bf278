/**
 * What `create` makes for `key`, made once and shared by every caller while it holds: a rejected promise, or a value
 * `keep` refuses (a seccomp filter that could not be built), is forgotten, so the next caller makes it again. The
 * map stays the caller's own module-level value, where server/process-wide.test.ts can see it.
 */
export function oncePerKey<K, V>(
  made: Map<K, Promise<V>>,
  key: K,
  create: () => Promise<V>,
  keep: (value: V) => boolean = () => true,
): Promise<V> {
  let pending = made.get(key);
  if (!pending) {
    pending = create().then(
      (value) => {
        if (!keep(value)) made.delete(key);
        return value;
      },
      (error: unknown) => {
        made.delete(key);
        throw error;
      },
    );
    made.set(key, pending);
  }
  return pending;
}
