/**
 * Caps over many chats: a person's files across their chats and everyone's on the server. An upload past a cap is
 * refused naming it; a script that would cross one is stopped naming it, and what it wrote is taken back.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ExecutionConfig, resolveExecutionConfig } from '../sandbox/config';
import { runCommand } from '../sandbox/run';
import { bwrapAvailability } from '../sandbox/select';
import { versionsDir } from './folders';
import { forgetUsage, roomFor, workspaceUsage } from './quota';
import { MAX_DEPTH } from './usage';
import { layerDir, saveUpload } from './workspace';

const KB = 1024;
let tmp: string;
let config: ExecutionConfig;

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-quota-'));
  config = resolveExecutionConfig(
    { workspace: { maxWorkspaceBytes: 400 * KB, maxPersonBytes: 300 * KB, maxServerBytes: 500 * KB } },
    tmp,
    tmp,
    {},
  );
  forgetUsage(config.workspace.dir);
});
// rm, not fs.rmSync: Node's gives up on a tree deeper than PATH_MAX.
afterEach(() => execFileSync('rm', ['-rf', '--', tmp]));

const upload = (chatId: string, name: string, bytes: number, owner: string) =>
  saveUpload(config.workspace.dir, chatId, name, new Uint8Array(bytes), config.workspace, owner);

describe('workspace quotas', () => {
  it("counts a person's files across their chats and refuses an upload past their cap", async () => {
    expect((await upload('a1', 'one.bin', 150 * KB, 'ann')).ok).toBe(true);
    expect((await upload('a2', 'two.bin', 120 * KB, 'ann')).ok).toBe(true);
    const usage = await workspaceUsage(config.workspace.dir);
    expect(usage.byOwner.get('ann')).toBeGreaterThanOrEqual(270 * KB);
    // Each chat is far under its own cap; together they pass ann's.
    const refused = await upload('a3', 'three.bin', 60 * KB, 'ann');
    expect(refused).toMatchObject({ ok: false, code: 'full' });
    if (!refused.ok) expect(refused.error).toMatch(/your space for files.*workspace\.maxPersonBytes/);
    // Someone else still has room.
    expect((await upload('b1', 'bob.bin', 60 * KB, 'bob')).ok).toBe(true);
  });

  it('refuses an upload past the whole server cap, naming it', async () => {
    expect((await upload('a1', 'a.bin', 250 * KB, 'ann')).ok).toBe(true);
    expect((await upload('b1', 'b.bin', 200 * KB, 'bob')).ok).toBe(true);
    const refused = await upload('c1', 'c.bin', 80 * KB, 'cat');
    expect(refused).toMatchObject({ ok: false, code: 'full' });
    if (!refused.ok) expect(refused.error).toMatch(/server's space for files.*workspace\.maxServerBytes/);
  });

  it('gives a chat only the room its owner has left', async () => {
    await upload('a1', 'one.bin', 200 * KB, 'ann');
    const room = await roomFor(config.workspace.dir, 'a2', 'ann', config.workspace);
    expect(room.bytes).toBeLessThanOrEqual(100 * KB);
    expect(room.label).toMatch(/maxPersonBytes/);
  });

  it("counts a chat's installed packages (its layer) with its files, under every cap", async () => {
    await upload('a1', 'one.bin', 10 * KB, 'ann');
    const layer = path.join(layerDir(config.workspace.dir, 'a1'), 'python', 'pkg');
    fs.mkdirSync(layer, { recursive: true });
    fs.writeFileSync(path.join(layer, 'big.so'), new Uint8Array(250 * KB));
    forgetUsage(config.workspace.dir);
    const usage = await workspaceUsage(config.workspace.dir);
    expect(usage.byChat.get('a1')?.layer).toBeGreaterThanOrEqual(250 * KB);
    expect(usage.byOwner.get('ann')).toBeGreaterThanOrEqual(260 * KB);
    // The chat's own files get what its layer leaves of the chat cap (400 KB) and of ann's (300 KB).
    const room = await roomFor(config.workspace.dir, 'a1', 'ann', config.workspace);
    expect(room.bytes).toBeLessThanOrEqual(50 * KB);
    expect(room.label).toMatch(/maxPersonBytes/);
    expect((await upload('a1', 'two.bin', 60 * KB, 'ann')).ok).toBe(false);
  });

  it("counts the kept copies of a chat's files (its versions) in the person's and the server's caps", async () => {
    await upload('a1', 'one.bin', 10 * KB, 'ann');
    const versions = versionsDir(config.workspace.dir, 'a1');
    fs.mkdirSync(versions, { recursive: true });
    fs.writeFileSync(path.join(versions, 'copy'), new Uint8Array(250 * KB));
    forgetUsage(config.workspace.dir);
    const usage = await workspaceUsage(config.workspace.dir);
    expect(usage.byChat.get('a1')?.bytes).toBeLessThan(20 * KB);
    expect(usage.byOwner.get('ann')).toBeGreaterThanOrEqual(260 * KB);
    expect(usage.total).toBeGreaterThanOrEqual(260 * KB);
    expect((await upload('a2', 'two.bin', 60 * KB, 'ann')).ok).toBe(false);
  });

  it('a chat whose files cannot be measured gets no room, and counts as a full chat toward its owner', async () => {
    await upload('a1', 'one.bin', 10 * KB, 'ann');
    await upload('a2', 'two.bin', 10 * KB, 'ann');
    // Nested past what the walk descends: it cannot be measured, so it is not taken as small.
    fs.mkdirSync(path.join(config.workspace.dir, 'a1', 'files', ...Array<string>(MAX_DEPTH + 2).fill('d')), {
      recursive: true,
    });
    forgetUsage(config.workspace.dir);
    expect((await roomFor(config.workspace.dir, 'a1', 'ann', config.workspace)).bytes).toBe(0);
    // a1 is charged the chat cap (400 KB), past ann's 300 KB: a2 has no room left either.
    const room = await roomFor(config.workspace.dir, 'a2', 'ann', config.workspace);
    expect(room).toMatchObject({ bytes: 0, label: expect.stringMatching(/maxPersonBytes/) });
  });
});

describe.skipIf(!(await bwrapAvailability(100_000)).ok)('a script that would cross a cap', () => {
  it("is stopped naming the person's cap, and what it wrote is taken back", async () => {
    await upload('a1', 'one.bin', 250 * KB, 'ann');
    // Files each under the room left, together over it.
    const r = await runCommand('for i in 1 2 3 4; do head -c 30000 /dev/urandom > f$i.bin; done; sleep 1; echo done', {
      execution: config,
      chatId: 'a2',
      owner: 'ann',
    });
    expect(r.errorCode).toBe('limit-exceeded');
    expect(r.error).toMatch(/workspace\.maxPersonBytes/);
    expect(r.stdout).not.toContain('done');
    expect(fs.readdirSync(path.join(config.workspace.dir, 'a2', 'files'))).toEqual([]);
  }, 30_000);

  it('is stopped when it writes below a path deeper than PATH_MAX', async () => {
    const MiB = 1024 * 1024;
    const deep = resolveExecutionConfig({ workspace: { maxWorkspaceBytes: 8 * MiB } }, tmp, tmp, {});
    // 20 folders of 250 characters made with mkdir + cd: the files' full paths are over 5,000 characters.
    const script =
      "d=$(printf 'a%.0s' $(seq 250)); for i in $(seq 20); do mkdir $d && cd $d; done; " +
      'for j in 1 2 3 4; do head -c 4194304 /dev/zero > f$j; sleep 0.3; done; echo done';
    const r = await runCommand(script, { execution: deep, chatId: 'deep', owner: 'ann' });
    expect(r.errorCode).toBe('limit-exceeded');
    expect(r.error).toMatch(/more than 8388608 bytes/);
    expect(r.stdout).not.toContain('done');
    expect(fs.readdirSync(path.join(deep.workspace.dir, 'deep', 'files'))).toEqual([]);
  }, 30_000);
});
