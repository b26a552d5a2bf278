import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findPostgresBinaries } from './pg-scratch';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-bins-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function fakeVersion(version: string, tools = ['initdb', 'pg_ctl']): string {
  const bin = path.join(root, 'lib', version, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  for (const tool of tools) fs.writeFileSync(path.join(bin, tool), '');
  return bin;
}

describe('finding the PostgreSQL server binaries', () => {
  it('is null when none are installed, so the pg suite skips instead of failing', () => {
    expect(findPostgresBinaries({}, path.join(root, 'missing'))).toBeNull();
  });

  it('takes the newest Debian version that has initdb and pg_ctl; PG_BIN comes first', () => {
    fakeVersion('13');
    const v15 = fakeVersion('15');
    fakeVersion('16', ['pg_ctl']);
    expect(findPostgresBinaries({}, path.join(root, 'lib'))).toBe(v15);
    const own = fakeVersion('own');
    expect(findPostgresBinaries({ PG_BIN: own }, path.join(root, 'lib'))).toBe(own);
  });
});
