import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeStamp } from './code-version';

let tmp: string;

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'code-version-'));
});

afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('codeStamp', () => {
  it('changes with any code file of the folder, sources or bundle, and with nothing else', () => {
    const dir = path.join(tmp, 'code');
    fs.mkdirSync(dir);
    for (const name of ['a.ts', 'b.cjs', 'c.mjs', 'd.js', 'e.cjs.map']) fs.writeFileSync(path.join(dir, name), 'x');
    const stamp = codeStamp(dir);
    expect(codeStamp(dir)).toBe(stamp);
    fs.writeFileSync(path.join(dir, 'e.cjs.map'), 'a longer source map');
    expect(codeStamp(dir)).toBe(stamp);
    for (const name of ['a.ts', 'b.cjs', 'c.mjs', 'd.js']) {
      const before = codeStamp(dir);
      fs.writeFileSync(path.join(dir, name), 'longer code');
      expect(codeStamp(dir), name).not.toBe(before);
    }
  });
});
