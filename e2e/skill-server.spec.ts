/**
 * skillchat as the team's skill server, on an exposed server (`next start -H 0.0.0.0`): the admin signs
 * in, makes a personal access token on /settings/tokens (from the account menu), and an MCP SDK client in this test
 * process connects to `/mcp` with it, lists the skills and reads every file (the SDK's SkillsClient checks every
 * digest). A member's token sees only what the member may use; no token is a 401. The well-known index's digests
 * match the files it serves.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { expect, type Page, test } from '@playwright/test';
import { fileDigest, skillDigest } from '../server/skills/digests';
import { freePort, type OwnServer, startOwnServer } from './own-server';

test.describe.configure({ mode: 'serial' });

const ADMIN = { email: 'ada@example.test', password: 'ada-password-1', name: 'Ada' };
const MEMBER = { email: 'max@example.test', password: 'max-password-1' };

let server: OwnServer;
let tmp: string;
let skillsDir: string;
const tokens = { admin: '', member: '' };

function writeSkill(name: string, files: Record<string, string> = {}) {
  const dir = path.join(skillsDir, name);
  const all = { 'SKILL.md': `---\nname: ${name}\ndescription: Does ${name} things.\n---\n# ${name}\n`, ...files };
  for (const [rel, content] of Object.entries(all)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  }
}

test.beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-skill-server-')));
  skillsDir = path.join(tmp, 'skills');
  fs.mkdirSync(path.join(tmp, 'home'));
  writeSkill('team-report', { 'references/style.md': '# House style\n', 'scripts/count.py': 'print(1)\n' });
  writeSkill('team-notes');
  server = await startOwnServer(
    await freePort(),
    {
      SKILLCHAT_DB: path.join(tmp, 'skill-server.db'),
      SKILLCHAT_HOME: path.join(tmp, 'home'),
      SKILLCHAT_SKILL_ROOTS: skillsDir,
    },
    { bind: '0.0.0.0' },
  );
});

test.afterAll(async () => {
  await server?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function signIn(page: Page, who: { email: string; password: string }) {
  await page.goto(`${server.origin}/login`);
  await page.getByTestId('login-email').fill(who.email);
  await page.getByTestId('login-password').fill(who.password);
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(`${server.origin}/`);
}

async function connect(token: string) {
  const client = new Client({ name: 'e2e-skill-client', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return { client, skills: new SkillsClient(client) };
}

test('the admin makes a token on the settings page; it is shown once and listed after', async ({ page }) => {
  const setup = /setup token \(valid once\): (\S+)/.exec(server.output());
  expect(setup).not.toBeNull();
  const created = await page.request.post(`${server.origin}/api/setup`, {
    headers: { origin: server.origin },
    data: { token: setup![1], ...ADMIN },
  });
  expect(created.status()).toBe(201);
  await signIn(page, ADMIN);
  await page.getByTestId('account-menu').getByTestId('tokens-link').click();
  await expect(page).toHaveURL(`${server.origin}/settings/tokens`);
  await page.getByTestId('token-name').fill('Claude Code on my laptop');
  await page.getByTestId('token-create').click();
  const value = page.getByTestId('token-value');
  await expect(value).toHaveText(/^sc_[A-Za-z0-9_-]{43}$/);
  tokens.admin = (await value.textContent()) ?? '';
  await expect(page.getByTestId('token-row')).toHaveCount(1);
  await expect(page.getByTestId('token-row')).toContainText('Claude Code on my laptop');
  // Shown once: a reload lists the token by its hint only.
  await page.reload();
  await expect(page.getByTestId('token-row')).toContainText(tokens.admin.slice(-4));
  await expect(page.getByTestId('token-value')).toHaveCount(0);

  // The admin adds a member, who switches team-notes off for themselves and makes a token.
  const member = await page.request.post(`${server.origin}/api/admin/users`, {
    headers: { origin: server.origin },
    data: { ...MEMBER, role: 'member' },
  });
  expect(member.status()).toBe(201);
});

test('an MCP client with the token lists and reads the skills; without one, 401', async ({ browser }) => {
  const memberContext = await browser.newContext();
  const memberPage = await memberContext.newPage();
  await signIn(memberPage, MEMBER);
  const off = await memberPage.request.put(`${server.origin}/api/me/skills/team-notes`, {
    headers: { origin: server.origin },
    data: { disabled: true },
  });
  expect(off.status()).toBe(200);
  const made = await memberPage.request.post(`${server.origin}/api/me/tokens`, {
    headers: { origin: server.origin },
    data: { name: 'codex' },
  });
  expect(made.status()).toBe(201);
  tokens.member = ((await made.json()) as { token: string }).token;
  await memberContext.close();

  const noToken = await fetch(`${server.origin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  expect(noToken.status).toBe(401);
  expect(await noToken.json()).toMatchObject({ code: 'unauthorized:token' });

  const admin = await connect(tokens.admin);
  try {
    expect(admin.skills.supported).toBe(true);
    const { skills } = await admin.skills.list();
    expect(skills.map((s) => s.frontmatter.name)).toEqual(['team-notes', 'team-report']);
    const report = skills.find((s) => s.frontmatter.name === 'team-report')!;
    const resources = report.resources === 'dynamic' ? [] : report.resources;
    expect(resources).toHaveLength(3);
    for (const resource of resources) {
      const rel = resource.uri.slice('skill://team-report/'.length);
      const file = await admin.skills.read(report, rel);
      expect(file.verified).toBe(true);
      expect(Buffer.from(file.bytes).equals(fs.readFileSync(path.join(skillsDir, 'team-report', rel)))).toBe(true);
    }
  } finally {
    await admin.client.close();
  }

  const member = await connect(tokens.member);
  try {
    expect((await member.skills.list()).skills.map((s) => s.frontmatter.name)).toEqual(['team-report']);
    await expect(member.client.readResource({ uri: 'skill://team-notes/SKILL.md' })).rejects.toThrow();
  } finally {
    await member.client.close();
  }
});

test('the well-known index lists the same skills, and every digest matches what is served', async () => {
  const auth = { authorization: `Bearer ${tokens.admin}` };
  expect((await fetch(`${server.origin}/.well-known/agent-skills/index.json`)).status).toBe(401);
  const reply = await fetch(`${server.origin}/.well-known/agent-skills/index.json`, { headers: auth });
  expect(reply.status).toBe(200);
  const index = (await reply.json()) as {
    version: string;
    skills: Array<{ name: string; digest: string; files: Array<{ path: string; digest: string }> }>;
  };
  expect(index.version).toBe('0.2.0');
  expect(index.skills.map((s) => s.name)).toEqual(['team-notes', 'team-report']);
  for (const skill of index.skills) {
    const fetched = [];
    for (const file of skill.files) {
      const served = await fetch(`${server.origin}/.well-known/agent-skills/${skill.name}/${file.path}`, {
        headers: auth,
      });
      expect(served.status).toBe(200);
      const digest = fileDigest(Buffer.from(await served.arrayBuffer()));
      expect(digest).toBe(file.digest);
      fetched.push({ path: file.path, digest });
    }
    expect(skillDigest(fetched)).toBe(skill.digest);
  }
  const head = await fetch(`${server.origin}/.well-known/agent-skills/team-report/SKILL.md`, {
    method: 'HEAD',
    headers: auth,
  });
  expect(head.status).toBe(200);
  expect(head.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
});
