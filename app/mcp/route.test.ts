/**
 * skillchat as a skill server, at the route level: the real `POST /mcp` and
 * `GET /.well-known/agent-skills/...` handlers, given `Request`s. An MCP SDK client (`Client`, its Streamable HTTP
 * transport and `SkillsClient`, which checks every digest) talks to `POST /mcp` through a fetch that calls the
 * handler. Loopback answers without a login; an exposed server wants a personal access token, and each token sees
 * only what its person may use.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fileDigest, skillDigest } from '@/server/skills/digests';

const exposure = vi.hoisted(() => ({ exposed: false }));
vi.mock('@/server/security/runtime', async () => {
  const { buildExposurePolicy } = await import('@/server/security/exposure');
  return {
    getExposurePolicy: () =>
      buildExposurePolicy({
        env: { __NEXT_PRIVATE_ORIGIN: exposure.exposed ? 'http://0.0.0.0:3000' : 'http://127.0.0.1:3000' },
        allowedHosts: [],
      }),
  };
});

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-skill-server-'));
const skillsRoot = path.join(tmp, 'skills');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0, 0xff, 0xfe]);

function writeSkill(name: string, files: Record<string, string | Buffer> = {}, extra = '') {
  const dir = path.join(skillsRoot, name);
  const all = {
    'SKILL.md': `---\nname: ${name}\ndescription: Does ${name} things.\n${extra}---\n# ${name}\n`,
    ...files,
  };
  for (const [rel, content] of Object.entries(all)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  }
}

const tokens = { admin: '', member: '', revoked: '', disabled: '' };

beforeAll(async () => {
  writeSkill('alpha', {
    'references/guide.md': '# Guide\n\nRead me.\n',
    'scripts/run.sh': '#!/bin/sh\necho hi\n',
    'assets/logo.png': PNG,
  });
  writeSkill('beta');
  writeSkill('secret-ops');
  writeSkill('hand-only');
  fs.writeFileSync(
    path.join(tmp, 'config.json'),
    JSON.stringify({ permissions: { rules: { 'secret-*': 'deny' } }, skills: { modes: { 'hand-only': 'manual' } } }),
  );
  vi.stubEnv('SKILLCHAT_DB', path.join(tmp, 'chat.db'));
  vi.stubEnv('SKILLCHAT_SKILL_ROOTS', skillsRoot);
  vi.stubEnv('SKILLCHAT_CONFIG', path.join(tmp, 'config.json'));
  vi.stubEnv('SKILLCHAT_HOME', tmp);
  vi.stubEnv('SKILLCHAT_AUTH_SECRET', 'x'.repeat(40));
  const { getApp } = await import('@/server/app');
  const { setSkillDisabled } = await import('@/server/db');
  const { createPersonalToken, revokeToken } = await import('@/server/auth/personal-tokens');
  const { users } = await import('@/server/db/schema-auth');
  const { db } = await getApp();
  const now = new Date();
  for (const [id, role] of [
    ['ann', 'admin'],
    ['bob', 'member'],
    ['cy', 'member'],
  ] as const) {
    await db.db
      .insert(users as unknown as typeof db.t.users)
      .values({ id, name: id, email: `${id}@example.com`, role, createdAt: now, updatedAt: now });
  }
  // Bob switched beta off for himself: his token must not see it; Ann's still does.
  await setSkillDisabled('bob', 'beta', true, db);
  tokens.admin = (await createPersonalToken(db, 'ann', 'laptop')).token;
  tokens.member = (await createPersonalToken(db, 'bob', 'laptop')).token;
  const revoked = await createPersonalToken(db, 'bob', 'old');
  await revokeToken(db, 'bob', revoked.created.id);
  tokens.revoked = revoked.token;
  // Cy's account is disabled by an admin: her token stops working with it.
  tokens.disabled = (await createPersonalToken(db, 'cy', 'laptop')).token;
  const { eq } = await import('drizzle-orm');
  await db.db
    .update(users as unknown as typeof db.t.users)
    .set({ banned: true })
    .where(eq(users.id as unknown as typeof db.t.users.id, 'cy'));
});

afterAll(async () => {
  const { closeDb } = await import('@/server/db');
  closeDb();
  vi.unstubAllEnvs();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const BASE = 'http://127.0.0.1:3000';

async function connect(token?: string) {
  const { POST } = await import('./route');
  const client = new Client({ name: 'skill-server-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
    ...(token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {}),
    fetch: (url, init) => POST(new Request(url, init)),
  });
  await client.connect(transport);
  return { client, skills: new SkillsClient(client) };
}

async function wellKnown(rel: string, token?: string) {
  const { GET } = await import('../.well-known/agent-skills/[...path]/route');
  const request = new Request(`${BASE}/.well-known/agent-skills/${rel}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return GET(request, { params: Promise.resolve({ path: rel.split('/') }) });
}

describe('POST /mcp on a loopback server', () => {
  it('declares the skills extension, lists the usable skills and reads every file, verified', async () => {
    exposure.exposed = false;
    const { client, skills } = await connect();
    try {
      expect(skills.supported).toBe(true);
      const { skills: entries } = await skills.list();
      // secret-ops is denied, hand-only is manual (hidden from catalogs): neither is served.
      expect(entries.map((e) => e.frontmatter.name)).toEqual(['alpha', 'beta']);
      const alpha = entries[0]!;
      expect(alpha.uri).toBe('skill://alpha/SKILL.md');
      expect(alpha.frontmatter).toMatchObject({ name: 'alpha', description: 'Does alpha things.' });
      const resources = alpha.resources === 'dynamic' ? [] : alpha.resources;
      expect(resources.map((r) => r.uri).sort()).toEqual([
        'skill://alpha/SKILL.md',
        'skill://alpha/assets/logo.png',
        'skill://alpha/references/guide.md',
        'skill://alpha/scripts/run.sh',
      ]);
      for (const resource of resources) {
        const rel = resource.uri.slice('skill://alpha/'.length);
        const file = await skills.read(alpha, rel); // throws SkillVerificationError on a size or digest mismatch
        expect(file.verified).toBe(true);
        expect(Buffer.from(file.bytes).equals(fs.readFileSync(path.join(skillsRoot, 'alpha', rel)))).toBe(true);
      }
      const png = await client.readResource({ uri: 'skill://alpha/assets/logo.png' });
      expect(png.contents[0]).toMatchObject({ blob: PNG.toString('base64') });
      const manifest = await skills.read(alpha);
      expect(manifest.body).toBe('# alpha\n');
      expect((await skills.get('skill://beta/SKILL.md')).skill.frontmatter.name).toBe('beta');
      await expect(skills.get('skill://secret-ops/SKILL.md')).rejects.toThrow();
      await expect(client.readResource({ uri: 'skill://secret-ops/SKILL.md' })).rejects.toThrow();
      await expect(client.readResource({ uri: 'skill://alpha/../beta/SKILL.md' })).rejects.toThrow();
    } finally {
      await client.close();
    }
  });
});

describe('POST /mcp on an exposed server', () => {
  it('answers 401 JSON without a token, or with an unknown or revoked one, or one of a disabled account', async () => {
    exposure.exposed = true;
    const { POST } = await import('./route');
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    for (const token of [undefined, 'sc_nope', tokens.revoked, tokens.disabled]) {
      const response = await POST(
        new Request(`${BASE}/mcp`, {
          method: 'POST',
          body,
          headers: token ? { ...headers, authorization: `Bearer ${token}` } : headers,
        }),
      );
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: 'unauthorized:token' });
    }
    await expect(connect()).rejects.toThrow();
  });

  it("serves each token its person's skills: a member sees only what they may use", async () => {
    exposure.exposed = true;
    const admin = await connect(tokens.admin);
    const member = await connect(tokens.member);
    try {
      expect((await admin.skills.list()).skills.map((e) => e.frontmatter.name)).toEqual(['alpha', 'beta']);
      const mine = await member.skills.list();
      expect(mine.skills.map((e) => e.frontmatter.name)).toEqual(['alpha']);
      expect((await member.skills.read(mine.skills[0]!, 'references/guide.md')).text).toBe('# Guide\n\nRead me.\n');
      await expect(member.client.readResource({ uri: 'skill://beta/SKILL.md' })).rejects.toThrow();
      await expect(member.skills.get('skill://beta/SKILL.md')).rejects.toThrow();
    } finally {
      await admin.client.close();
      await member.client.close();
    }
  });
});

describe('GET /.well-known/agent-skills', () => {
  it('serves a v0.2.0 index whose every digest matches the bytes served', async () => {
    exposure.exposed = false;
    const response = await wellKnown('index.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const index = (await response.json()) as {
      version: string;
      skills: Array<{
        name: string;
        description: string;
        digest: string;
        files: Array<{ path: string; digest: string }>;
      }>;
    };
    expect(index.version).toBe('0.2.0');
    expect(index.skills.map((s) => s.name)).toEqual(['alpha', 'beta']);
    for (const skill of index.skills) {
      expect(skill.files[0]!.path).toBe('SKILL.md');
      const fetched = [];
      for (const file of skill.files) {
        const served = await wellKnown(`${skill.name}/${file.path}`);
        expect(served.status).toBe(200);
        const bytes = Buffer.from(await served.arrayBuffer());
        expect(fileDigest(bytes)).toBe(file.digest);
        fetched.push({ path: file.path, digest: fileDigest(bytes) });
      }
      expect(skillDigest(fetched)).toBe(skill.digest);
    }
    expect((await wellKnown('alpha/SKILL.md')).headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect((await wellKnown('alpha/assets/logo.png')).headers.get('content-type')).toBe('image/png');
    expect((await wellKnown('alpha/missing.md')).status).toBe(404);
    expect((await wellKnown('secret-ops/SKILL.md')).status).toBe(404);
    expect((await wellKnown('alpha')).status).toBe(404);
  });

  it('wants a token (or a session) on an exposed server, and lists only what the person may use', async () => {
    exposure.exposed = true;
    const anonymous = await wellKnown('index.json');
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ code: 'unauthorized:token' });
    expect((await wellKnown('alpha/SKILL.md')).status).toBe(401);
    const member = (await (await wellKnown('index.json', tokens.member)).json()) as { skills: Array<{ name: string }> };
    expect(member.skills.map((s) => s.name)).toEqual(['alpha']);
    expect((await wellKnown('beta/SKILL.md', tokens.member)).status).toBe(404);
    expect((await wellKnown('beta/SKILL.md', tokens.admin)).status).toBe(200);
  });
});
