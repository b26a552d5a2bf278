import { describe, expect, it } from 'vitest';
import { isSafeFileName, MAX_PATH_DEPTH, safeFileName, safeRelativePath, uniqueName } from './file-names';

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

describe('safeRelativePath', () => {
  it('takes a name and a path below folders a script made', () => {
    expect(safeRelativePath('report.pdf')).toBe('report.pdf');
    expect(safeRelativePath('unpacked/word/document.xml')).toBe('unpacked/word/document.xml');
    expect(safeRelativePath('pages/p-1.png')).toBe('pages/p-1.png');
  });

  it('refuses a way out of the workspace: `..`, `.`, absolute, empty segments, backslashes', () => {
    for (const raw of ['../etc/passwd', 'a/../../b', 'a/./b', '/etc/passwd', 'a//b', 'a/', '', '..', 'a\\..\\b']) {
      expect(safeRelativePath(raw), raw).toBeNull();
    }
  });

  it('refuses an encoded `..` once decoded (a route gets its segments decoded)', () => {
    expect(safeRelativePath(decodeURIComponent('%2e%2e/secret'))).toBeNull();
    expect(safeRelativePath(decodeURIComponent('a%2F..%2F..%2Fb'))).toBeNull();
    expect(safeRelativePath(decodeURIComponent('%2E%2E'))).toBeNull();
  });

  it('refuses hidden names, control characters and paths deeper than MAX_PATH_DEPTH', () => {
    expect(safeRelativePath('.cache/x')).toBeNull();
    expect(safeRelativePath('a/\u0000b')).toBeNull();
    expect(safeRelativePath(Array(MAX_PATH_DEPTH).fill('a').join('/'))).not.toBeNull();
    expect(
      safeRelativePath(
        Array(MAX_PATH_DEPTH + 1)
          .fill('a')
          .join('/'),
      ),
    ).toBeNull();
  });
});
