import { describe, expect, it } from 'vitest';
import { compareNames } from './name-order';

describe('compareNames', () => {
  it('orders by code point, not by UTF-16 code unit', () => {
    // U+FF5E (BMP, code unit 0xFF5E) sorts before U+1F600 (astral, first code unit 0xD83D) by code point.
    expect(['\u{1F600}', '\uFF5E', 'a'].sort(compareNames)).toEqual(['a', '\uFF5E', '\u{1F600}']);
    expect(['b', 'a-b', 'a'].sort(compareNames)).toEqual(['a', 'a-b', 'b']);
  });

  it('agrees with comparing code point by code point, surrogates after a shared start included', () => {
    const byCodePoints = (a: string, b: string) => {
      const [pa, pb] = [[...a].map((c) => c.codePointAt(0)!), [...b].map((c) => c.codePointAt(0)!)];
      for (let i = 0; i < Math.min(pa.length, pb.length); i++) if (pa[i] !== pb[i]) return pa[i]! < pb[i]! ? -1 : 1;
      return Math.sign(pa.length - pb.length);
    };
    const names = [
      'pdf',
      'pdf-2',
      'pdf\uFF5E',
      'pdf\u{1F600}',
      'pdf\u{1F601}',
      'pdf\u{10000}',
      'pdf\uD83D',
      'pd',
      'é',
      'e',
    ];
    for (const a of names)
      for (const b of names) expect([a, b, compareNames(a, b)]).toEqual([a, b, byCodePoints(a, b)]);
  });
});
