/**
 * Deleting a chat's files whatever a script made of them: a tree deeper than PATH_MAX (which Node's fs.rm gives up
 * on with ENAMETOOLONG) goes like any other, and what could not be removed waits in the trash for the next deletion.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TRASH, workspaceUsage } from './quota';
import { chatFolder, deleteWorkspace, ensureWorkspace } from './workspace';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-remove-'));
});
afterEach(() => execFileSync('rm', ['-rf', '--', root]));

/** 20 folders of 250 characters, made with mkdir + cd as a script would, and a file at the bottom. */
function deepTree(dir: string): void {
  const name = 'a'.repeat(250);
  execFileSync('bash', ['-c', `for i in $(seq 20); do mkdir ${name} && cd ${name} || exit 1; done; echo x > f`], {
    cwd: dir,
  });
}

describe('deleteWorkspace', () => {
  it('removes a chat whose files hold a tree deeper than PATH_MAX', async () => {
    deepTree(await ensureWorkspace(root, 'deep'));
    expect(await deleteWorkspace(root, 'deep')).toBe(true);
    expect(fs.existsSync(chatFolder(root, 'deep'))).toBe(false);
    expect(fs.readdirSync(path.join(root, TRASH))).toEqual([]);
  });

  it('retries what an earlier deletion left in the trash, and counts it in the server total meanwhile', async () => {
    const left = path.join(root, TRASH, 'old-1');
    fs.mkdirSync(left, { recursive: true });
    fs.writeFileSync(path.join(left, 'big.bin'), new Uint8Array(100_000));
    deepTree(left);
    expect((await workspaceUsage(root)).total).toBeGreaterThanOrEqual(100_000);
    await ensureWorkspace(root, 'other');
    expect(await deleteWorkspace(root, 'other')).toBe(true);
    expect(fs.readdirSync(path.join(root, TRASH))).toEqual([]);
  });

  it('a chat without files is deleted without complaint', async () => {
    expect(await deleteWorkspace(root, 'never-ran')).toBe(true);
  });
});
