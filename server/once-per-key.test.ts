import { describe, expect, it } from 'vitest';
import { oncePerKey } from './once-per-key';

describe('oncePerKey', () => {
  it('makes a value once per key and shares it; a failure or a refused value is made again', async () => {
    const made = new Map<string, Promise<number>>();
    let calls = 0;
    const make = (value: number) => () => {
      calls += 1;
      return Promise.resolve(value);
    };
    expect(await Promise.all([oncePerKey(made, 'a', make(1)), oncePerKey(made, 'a', make(2))])).toEqual([1, 1]);
    expect(calls).toBe(1);
    await expect(oncePerKey(made, 'b', () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(await oncePerKey(made, 'b', make(3))).toBe(3);
    expect(await oncePerKey(made, 'c', make(-1), (v) => v > 0)).toBe(-1);
    expect(await oncePerKey(made, 'c', make(4), (v) => v > 0)).toBe(4);
    expect(await oncePerKey(made, 'c', make(5))).toBe(4);
  });
});
