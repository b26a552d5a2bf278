import { describe, expect, it } from 'vitest';
import { isSafeFileName, safeFileName, uniqueName } from './file-names';

describe('safeFileName', () => {
  it.each([
    ['../../etc/passwd', 'passwd'],
    ['..\\..\\windows\\win.ini', 'win.ini'],
    ['/etc/shadow', 'shadow'],
    ['..', null],
    ['.', null],
    ['.env', 'env'],
    ['...hidden.txt', 'hidden.txt'],
    ['re\u0000port\n.pdf', 'report.pdf'],
    ['a\u202ffine name.csv', 'a\u202ffine name.csv'],
    ['  spaced.txt  ', 'spaced.txt'],
    ['', null],
    ['dir/', null],
  ])('%j -> %j', (raw, safe) => {
    expect(safeFileName(raw)).toBe(safe);
  });

  it('caps long names at 200 bytes, keeping the extension', () => {
    const name = safeFileName(`${'é'.repeat(300)}.pdf`)!;
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(200);
    expect(name.endsWith('.pdf')).toBe(true);
  });

  it('accepts only names that are already safe in URLs', () => {
    expect(isSafeFileName('report.pdf')).toBe(true);
    expect(isSafeFileName('../report.pdf')).toBe(false);
    expect(isSafeFileName('.hidden')).toBe(false);
  });
});

describe('uniqueName', () => {
  it('adds a counter before the extension on a clash', () => {
    expect(uniqueName('a.pdf', new Set())).toBe('a.pdf');
    expect(uniqueName('a.pdf', new Set(['a.pdf', 'a (2).pdf']))).toBe('a (3).pdf');
    expect(uniqueName('README', new Set(['README']))).toBe('README (2)');
  });
});
