import { describe, expect, it } from 'vitest';
import { KeptMap } from './kept-map';

describe('KeptMap', () => {
  it('keeps at most max entries, dropping the least recently used', () => {
    const kept = new KeptMap<string, number>(2);
    kept.set('a', 1).set('b', 2);
    expect(kept.get('a')).toBe(1); // now the most recent
    kept.set('c', 3); // drops b
    expect(kept.size).toBe(2);
    expect(kept.get('b')).toBeUndefined();
    expect(kept.get('a')).toBe(1);
    expect(kept.get('c')).toBe(3);
  });

  it('makes a value once per key', () => {
    const kept = new KeptMap<string, object>(4);
    let made = 0;
    const make = () => ({ n: ++made });
    expect(kept.getOrSet('k', make)).toBe(kept.getOrSet('k', make));
    expect(made).toBe(1);
  });

  it('replacing a key does not drop another', () => {
    const kept = new KeptMap<string, number>(2);
    kept.set('a', 1).set('b', 2).set('a', 3);
    expect([kept.get('a'), kept.get('b')]).toEqual([3, 2]);
  });
});
