/**
 * A chat's files as a tree: what a script writes into folders is listed and served by its path, what it links out of
 * the workspace is neither, and the latest run's new and changed files are marked.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openRunFiles } from './run-files';
import { ensureWorkspace, listWorkspace, openWorkspaceFile, scanWorkspace } from './workspace';

let root: string;
let outside: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-ws-tree-'));
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-ws-outside-'));
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'not yours');
});
afterEach(() => execFileSync('rm', ['-rf', '--', root, outside]));

function write(dir: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), text);
}

async function read(chatId: string, rel: string): Promise<string | null> {
  const file = await openWorkspaceFile(root, chatId, rel);
  if (!file) return null;
  try {
    return (await file.handle.readFile()).toString('utf8');
  } finally {
    await file.handle.close();
  }
}

describe('scanWorkspace', () => {
  it('lists the files in folders by their path, and skips links, hidden folders and unsafe names', async () => {
    const dir = await ensureWorkspace(root, 'c1');
    write(dir, 'report.pdf', 'pdf');
    write(dir, 'unpacked/word/document.xml', '<w/>');
    write(dir, 'pages/p-1.png', 'png');
    write(dir, '.cache/pip/x', 'cache');
    write(dir, 'odd/bad\u0001name.txt', 'x');
    fs.symlinkSync(outside, path.join(dir, 'linked'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, 'pages/secret.txt'));
    expect([...(await scanWorkspace(dir)).keys()].sort()).toEqual([
      'pages/p-1.png',
      'report.pdf',
      'unpacked/word/document.xml',
    ]);
  });
});

describe('openWorkspaceFile', () => {
  it('opens a file in a folder by its path', async () => {
    write(await ensureWorkspace(root, 'c2'), 'pages/p-1.png', 'png');
    expect(await read('c2', 'pages/p-1.png')).toBe('png');
  });

  it('refuses `..`, an absolute path and an encoded `..` decoded', async () => {
    const dir = await ensureWorkspace(root, 'c3');
    write(dir, 'a/b.txt', 'b');
    write(path.dirname(dir), 'meta-like.txt', 'outside the files');
    for (const rel of [
      '../meta-like.txt',
      'a/../../meta-like.txt',
      `/${dir}/a/b.txt`,
      decodeURIComponent('%2e%2e/meta-like.txt'),
    ]) {
      expect(await read('c3', rel), rel).toBeNull();
    }
  });

  it('refuses a file reached through a linked folder or a linked file (a symlink escape)', async () => {
    const dir = await ensureWorkspace(root, 'c4');
    fs.symlinkSync(outside, path.join(dir, 'linked'));
    fs.mkdirSync(path.join(dir, 'real'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, 'real/secret.txt'));
    expect(await read('c4', 'linked/secret.txt')).toBeNull();
    expect(await read('c4', 'real/secret.txt')).toBeNull();
  });
});

describe('a run marks what it created and changed', () => {
  it("lists the latest run's files in folders as created or changed, and earlier ones unmarked", async () => {
    const caps = {
      dir: root,
      maxWorkspaceBytes: 10_000_000,
      maxPersonBytes: 10_000_000,
      maxServerBytes: 10_000_000,
      maxWorkspaceEntries: 1000,
    };
    const first = await openRunFiles(caps, { chatId: 'c5' });
    write(first.dir, 'old.txt', 'old');
    write(first.dir, 'unpacked/a.xml', '<a/>');
    const one = await first.finish();
    expect(one.changes.map((c) => [c.name, c.status])).toEqual([
      ['old.txt', 'created'],
      ['unpacked/a.xml', 'created'],
    ]);

    const second = await openRunFiles(caps, { chatId: 'c5' });
    write(second.dir, 'unpacked/a.xml', '<a changed="yes"/>');
    write(second.dir, 'unpacked/b.xml', '<b/>');
    await second.finish();
    const listed = Object.fromEntries((await listWorkspace(root, 'c5')).map((f) => [f.name, f.change ?? null]));
    expect(listed).toEqual({ 'old.txt': null, 'unpacked/a.xml': 'changed', 'unpacked/b.xml': 'created' });
  });
});
