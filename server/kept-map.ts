/**
 * A map that keeps at most `max` entries, dropping the least recently used: for caches of derived values keyed by
 * their inputs (prepared statements by SQL text, tool schemas by enum, parsed system prompts), where the keys a
 * process sees are few but not bounded by construction.
 */
export class KeptMap<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly max: number) {}

  get size(): number {
    return this.#entries.size;
  }

  /** The value, now the most recently used; undefined when not kept. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      // Maps iterate in insertion order: re-inserting moves the key to the newest end.
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): this {
    this.#entries.delete(key);
    if (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, value);
    return this;
  }

  /** The kept value, or `make()`'s, kept. */
  getOrSet(key: K, make: () => V): V {
    const known = this.get(key);
    if (known !== undefined) return known;
    const value = make();
    this.set(key, value);
    return value;
  }
}
