/**
 * The skill server's resources: `resources/list` names each served skill's `SKILL.md`, and
 * `resources/directory/read` walks a skill's folder, for the person asking and within what they may use. A real
 * MCP client (`Client` and `SkillsClient`) talks to the real handler (`createSkillServerHandler`) over Streamable
 * HTTP, through a fetch that calls the handler in process; skills, config, access and database are the real ones.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { DIRECTORY_MIME_TYPE, SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { afterAll, describe, expect, it } from 'vitest';
import { createAccessResolver } from '../access/resolver';
import { loadConfig } from '../config';
import { openDb, setSkillDisabled, sqliteDatabase } from '../db';
import { createSkillRegistry } from '../skills/registry';
import { createSkillServerHandler, personAuthInfo } from './mcp';
import { createPublisher } from './publication';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-skill-resources-'));
const skillsRoot = path.join(tmp, 'skills');

function writeSkill(name: string, files: Record<string, string> = {}) {
  const dir = path.join(skillsRoot, name);
  const all = { 'SKILL.md': `---\nname: ${name}\ndescription: Does ${name} things.\n---\n# ${name}\n`, ...files };
  for (const [rel, content] of Object.entries(all)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  }
}

// alpha has nested folders, a link out of its folder (never served) and an empty folder (not a published one).
writeSkill('alpha', {
  'references/guide.md': '# Guide\n',
  'references/deep/notes.md': 'notes\n',
  'scripts/run.sh': '#!/bin/sh\necho hi\n',
});
fs.writeFileSync(path.join(tmp, 'outside.txt'), 'not a skill file\n');
fs.symlinkSync(path.join(tmp, 'outside.txt'), path.join(skillsRoot, 'alpha', 'references', 'escape.md'));
fs.mkdirSync(path.join(skillsRoot, 'alpha', 'empty'));
// beta has a folder of more children than one page holds (100).
writeSkill('beta', Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`many/f${1000 + i}.txt`, `${i}\n`])));
writeSkill('secret-ops', { 'references/plan.md': 'plan\n' });

const base = loadConfig({
  appDir: tmp,
  env: { SKILLCHAT_DB: path.join(tmp, 'db.sqlite'), SKILLCHAT_SKILL_ROOTS: skillsRoot },
  home: path.join(tmp, 'home'),
});
const config = { ...base, permissions: { rules: { 'secret-*': 'deny' as const } } };
const db = sqliteDatabase(openDb(config.databasePath));
const handler = createSkillServerHandler({
  registry: createSkillRegistry(config),
  access: createAccessResolver(config),
  db,
  publisher: createPublisher(),
  warn: () => {},
});

afterAll(async () => {
  await handler.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function connect(person: string) {
  const client = new Client({ name: 'skill-resources-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1:3000/mcp'), {
    fetch: (url, init) => handler.fetch(new Request(url, init), { authInfo: personAuthInfo(person, null) }),
  });
  await client.connect(transport);
  return { client, skills: new SkillsClient(client) };
}

async function withClient(person: string, run: (c: Awaited<ReturnType<typeof connect>>) => Promise<void>) {
  const connected = await connect(person);
  try {
    await run(connected);
  } finally {
    await connected.client.close();
  }
}

async function readDirectoryError(skills: SkillsClient, uri: string): Promise<number | undefined> {
  try {
    await skills.readDirectory(uri);
  } catch (error) {
    return error instanceof ProtocolError ? error.code : -1;
  }
  return undefined;
}

describe('resources/list', () => {
  it("lists each served skill's SKILL.md with its frontmatter name and description, and nothing else", async () => {
    await withClient('ann', async ({ client }) => {
      const { resources } = await client.listResources();
      const alphaSize = fs.statSync(path.join(skillsRoot, 'alpha', 'SKILL.md')).size;
      // secret-ops is denied: not listed, as skills/list does not list it.
      expect(resources).toEqual([
        {
          uri: 'skill://alpha/SKILL.md',
          name: 'alpha',
          description: 'Does alpha things.',
          mimeType: 'text/markdown',
          size: alphaSize,
        },
        expect.objectContaining({ uri: 'skill://beta/SKILL.md', name: 'beta', description: 'Does beta things.' }),
      ]);
      const read = await client.readResource({ uri: resources[0]!.uri });
      expect(read.contents[0]).toMatchObject({
        text: '---\nname: alpha\ndescription: Does alpha things.\n---\n# alpha\n',
      });
    });
  });

  it('lists only what the person may use: a skill they switched off is not there', async () => {
    await setSkillDisabled('bob', 'beta', true, db);
    await withClient('bob', async ({ client }) => {
      expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['skill://alpha/SKILL.md']);
    });
  });
});

describe('resources/directory/read', () => {
  it('declares directoryRead and lists the direct children of a skill folder and its subfolders', async () => {
    await withClient('ann', async ({ skills }) => {
      expect(skills.directoryRead).toBe(true);
      const root = await skills.readDirectory('skill://alpha');
      expect(root.resources).toEqual([
        { uri: 'skill://alpha/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown', size: expect.any(Number) },
        { uri: 'skill://alpha/references', name: 'references', mimeType: DIRECTORY_MIME_TYPE },
        { uri: 'skill://alpha/scripts', name: 'scripts', mimeType: DIRECTORY_MIME_TYPE },
      ]);
      // The link out of the folder is no child: it is never published.
      const references = await skills.readDirectory('skill://alpha/references');
      expect(references.resources.map((r) => [r.name, r.mimeType])).toEqual([
        ['deep', DIRECTORY_MIME_TYPE],
        ['guide.md', 'text/markdown'],
      ]);
      expect((await skills.readDirectory('skill://alpha/references/deep')).resources).toEqual([
        { uri: 'skill://alpha/references/deep/notes.md', name: 'notes.md', mimeType: 'text/markdown', size: 6 },
      ]);
    });
  });

  it('pages a large folder: every child once, in order, through nextCursor', async () => {
    await withClient('ann', async ({ skills }) => {
      const { resources } = await skills.readDirectory('skill://beta/many');
      const names = Array.from({ length: 150 }, (_, i) => `f${1000 + i}.txt`);
      expect(resources.map((r) => r.name)).toEqual(names);
    });
  });

  it('answers -32602 for a file, an unpublished or outside folder, and a skill the person may not use', async () => {
    await withClient('bob', async ({ skills }) => {
      for (const uri of [
        'skill://alpha/SKILL.md',
        'skill://alpha/references/guide.md',
        'skill://alpha/references/escape.md',
        'skill://alpha/empty',
        'skill://alpha/..',
        'skill://alpha/references/../..',
        'skill://alpha/missing',
        'skill://secret-ops',
        'skill://secret-ops/references',
        'skill://beta', // switched off by bob
        'skill://nope',
        'file:///etc',
      ]) {
        expect([uri, await readDirectoryError(skills, uri)]).toEqual([uri, -32602]);
      }
    });
    await withClient('ann', async ({ skills }) => {
      expect(await readDirectoryError(skills, 'skill://beta')).toBeUndefined();
    });
  });
});
