import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_DEPTH, measureTree } from './usage';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-usage-'));
});
// rm, not fs.rmSync: Node's gives up on a tree deeper than PATH_MAX.
afterEach(() => execFileSync('rm', ['-rf', '--', tmp]));

const roomy = { maxBytes: 1024 ** 3, maxEntries: 1000 };

describe('measureTree', () => {
  it('counts files and folders at any depth', async () => {
    fs.mkdirSync(path.join(tmp, 'a', 'b'), { recursive: true });
    fs.writeFileSync(path.join(tmp, 'a', 'b', 'x.bin'), Buffer.alloc(10_000));
    fs.writeFileSync(path.join(tmp, 'y.txt'), 'hi');
    const usage = await measureTree(tmp, roomy);
    expect(usage.entries).toBe(4);
    expect(usage.bytes).toBeGreaterThanOrEqual(10_002);
    expect(usage.over).toBeNull();
  });

  it('does not follow links (a link to a big folder costs only itself)', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-usage-out-'));
    try {
      fs.writeFileSync(path.join(outside, 'big.bin'), Buffer.alloc(2_000_000));
      fs.symlinkSync(outside, path.join(tmp, 'link'));
      const usage = await measureTree(tmp, roomy);
      expect(usage.entries).toBe(1);
      expect(usage.bytes).toBeLessThan(100_000);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('charges allocated blocks, so many one-byte files add up', async () => {
    for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(tmp, `t${i}`), 'x');
    const usage = await measureTree(tmp, roomy);
    // 50 bytes of content, but each file takes at least one block on a real disk (tmpfs too).
    expect(usage.bytes).toBeGreaterThan(50 * 512);
  });

  it('stops at the first cap passed', async () => {
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(tmp, `f${i}`), Buffer.alloc(1000));
    expect(await measureTree(tmp, { maxBytes: 1024 ** 3, maxEntries: 10 })).toMatchObject({
      entries: 11,
      over: 'entries',
    });
    const bytes = await measureTree(tmp, { maxBytes: 5000, maxEntries: 1000 });
    expect(bytes.over).toBe('bytes');
    expect(bytes.entries).toBeLessThan(30);
  });

  it('a missing folder measures empty', async () => {
    expect(await measureTree(path.join(tmp, 'gone'), roomy)).toEqual({ bytes: 0, entries: 0, over: null });
  });

  it('measures a tree deeper than PATH_MAX (made with mkdir + cd, as a script would)', async () => {
    // 20 folders of 250 characters: the bottom's full path is over 5,000 characters.
    deepTree(tmp, 20, 'a'.repeat(250), 'head -c 1000000 /dev/zero > f');
    const usage = await measureTree(tmp, roomy);
    expect(usage.over).toBeNull();
    expect(usage.entries).toBe(21);
    expect(usage.bytes).toBeGreaterThanOrEqual(1_000_000);
    expect((await measureTree(tmp, { maxBytes: 500_000, maxEntries: 1000 })).over).toBe('bytes');
  });

  it(`counts a tree nested deeper than ${MAX_DEPTH} folders as over (it is not measured)`, async () => {
    fs.mkdirSync(path.join(tmp, ...Array<string>(MAX_DEPTH + 5).fill('d')), { recursive: true });
    expect((await measureTree(tmp, { maxBytes: 1024 ** 3, maxEntries: 10_000 })).over).toBe('depth');
  });
});

/** Makes `depth` nested folders named `name` under `dir` with relative mkdir + cd, then runs `bottom` there. */
function deepTree(dir: string, depth: number, name: string, bottom: string): void {
  execFileSync('bash', ['-c', `for i in $(seq ${depth}); do mkdir ${name} && cd ${name} || exit 1; done; ${bottom}`], {
    cwd: dir,
  });
}
