import { describe, expect, it } from 'vitest';
import { v8Shapes } from '../testing';
import { unshared } from './unshared';

describe('unshared', () => {
  const { isSlice } = v8Shapes();
  const cut = (text: string) => `${'x'.repeat(40)}${text}`.slice(40);

  it('copies a slice exactly, whatever its characters', () => {
    const texts = [
      'plain ASCII words, long enough',
      'Latin-1: café, naïve, ÿ and ß',
      'Beyond: Ωmega, 日本語, emoji 🙂, a lone \ud800 surrogate',
      'controls \u0000\u0001\u007f and quotes "\'\\',
    ];
    for (const text of texts) {
      const slice = cut(text);
      expect(isSlice(slice)).toBe(true);
      const copy = unshared(slice);
      expect(copy).toBe(text);
      expect(isSlice(copy)).toBe(false);
    }
  });

  it('leaves short strings as they are (V8 copies substrings under 13 characters anyway)', () => {
    expect(unshared('short')).toBe('short');
  });
});
