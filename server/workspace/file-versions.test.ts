import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepVersions, listVersions, MAX_VERSIONS_PER_FILE, openVersion } from './file-versions';
import { openRunFiles } from './run-files';

let root: string;
const caps = () => ({
  dir: root,
  maxWorkspaceBytes: 10_000_000,
  maxPersonBytes: 10_000_000,
  maxServerBytes: 10_000_000,
  maxWorkspaceEntries: 1000,
});

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-versions-'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function write(dir: string, rel: string, text: string) {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), text);
}

async function contentOf(chatId: string, name: string, id: string): Promise<string | null> {
  const opened = await openVersion(root, chatId, name, id);
  if (!opened) return null;
  try {
    return (await opened.handle.readFile()).toString('utf8');
  } finally {
    await opened.handle.close();
  }
}

/** One run of the chat that writes these files. */
async function run(chatId: string, files: Record<string, string>) {
  const run = await openRunFiles(caps(), { chatId });
  await run.begin();
  for (const [name, text] of Object.entries(files)) write(run.dir, name, text);
  return (await run.finish()).changes;
}

describe('the versions of a file the runs wrote', () => {
  it('each run keeps a copy of what it wrote, named in its result, and an earlier one opens with its content', async () => {
    const [first] = await run('v1', { 'out/report.md': '# First draft\n' });
    const [second] = await run('v1', { 'out/report.md': '# Second draft, longer\n' });
    expect(first).toMatchObject({ name: 'out/report.md', status: 'created', version: expect.any(String) });
    expect(second).toMatchObject({ name: 'out/report.md', status: 'changed', version: expect.any(String) });
    const versions = await listVersions(root, 'v1', 'out/report.md');
    expect(versions.map((v) => v.id)).toEqual([first!.version, second!.version]);
    expect(versions.map((v) => v.size)).toEqual([14, 23]);
    expect(await contentOf('v1', 'out/report.md', first!.version!)).toBe('# First draft\n');
    expect(await contentOf('v1', 'out/report.md', second!.version!)).toBe('# Second draft, longer\n');
  });

  it('a version opens only as the file it is a version of, and ids are checked', async () => {
    const [change] = await run('v2', { 'a.txt': 'a' });
    const id = change!.version!;
    expect(await contentOf('v2', 'a.txt', id)).toBe('a');
    expect(await openVersion(root, 'v2', 'b.txt', id)).toBeNull();
    expect(await openVersion(root, 'v1', 'a.txt', id)).toBeNull();
    expect(await openVersion(root, 'v2', 'a.txt', '../../meta.json')).toBeNull();
    expect(await openVersion(root, 'v2', 'a.txt', `${id}.json`)).toBeNull();
  });

  it('a link the run left is not copied', async () => {
    const run = await openRunFiles(caps(), { chatId: 'v3' });
    await run.begin();
    fs.writeFileSync(path.join(root, 'outside.txt'), 'secret');
    fs.symlinkSync(path.join(root, 'outside.txt'), path.join(run.dir, 'link.txt'));
    const changes = await keepVersions(root, 'v3', [
      { name: 'link.txt', size: 6, mediaType: 'text/plain', status: 'created' },
    ]);
    expect(changes[0]!.version).toBeUndefined();
    expect(await listVersions(root, 'v3', 'link.txt')).toEqual([]);
  });

  it('keeps the newest versions of a file, and a chat under its bytes', async () => {
    for (let i = 0; i < MAX_VERSIONS_PER_FILE + 2; i++) await run('v4', { 'n.txt': `version ${i}` });
    const versions = await listVersions(root, 'v4', 'n.txt');
    expect(versions).toHaveLength(MAX_VERSIONS_PER_FILE);
    expect(await contentOf('v4', 'n.txt', versions[0]!.id)).toBe('version 2');
    const dir = path.join(root, 'v4', 'files');
    write(dir, 'big.txt', 'x'.repeat(100));
    await keepVersions(root, 'v4', [{ name: 'big.txt', size: 100, mediaType: 'text/plain', status: 'created' }], 150);
    const left = [...(await listVersions(root, 'v4', 'n.txt')), ...(await listVersions(root, 'v4', 'big.txt'))];
    expect(left.reduce((n, v) => n + v.size, 0)).toBeLessThanOrEqual(150);
    expect(left.at(-1)!.name).toBe('big.txt');
  });
});
