/**
 * /admin's Network section, as an operator reads it: each skill's declared hosts and secrets beside what the
 * configuration grants it (a declared host that is not granted says so), and the egress record, filtered by
 * person, skill, host and outcome, with its JSON export. Runs its own `next start` over the fixture skills in
 * `e2e/fixtures/network/skills` and a config that grants `github-*` api.github.com and GITHUB_TOKEN; the record is
 * written into its database before it starts (the proxy writes the same rows).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { closeDb, insertEgressEvents, openDb, sqliteDatabase } from '../server/db';
import { freePort, type OwnServer, startOwnServer } from './own-server';
import { screenshotPath } from './screenshot-path';

test.describe.configure({ mode: 'serial' });

const fixtures = path.join(import.meta.dirname, 'fixtures', 'network');
let server: OwnServer;
let tmp: string;

test.beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-network-'));
  fs.mkdirSync(path.join(tmp, 'home'));
  const config = path.join(tmp, 'skillchat.config.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      permissions: { rules: { weather: 'ask' } },
      network: { skills: { 'github-*': ['api.github.com'] }, private: ['127.0.0.1/32'] },
      secrets: {
        GITHUB_TOKEN: {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own syntax
          value: '${env:GITHUB_TOKEN}',
          skills: ['github-*'],
          hosts: ['api.github.com'],
          header: 'Authorization: Bearer {}',
        },
      },
    }),
  );
  const dbPath = path.join(tmp, 'test.db');
  const db = openDb(dbPath);
  const base = { port: 443, requests: 1, bytesIn: 0, bytesOut: 0, durationMs: 4 };
  await insertEgressEvents(
    { runId: 'run-1', chatId: null, userId: 'local' },
    [
      {
        ...base,
        host: 'api.github.com',
        allowed: true,
        skills: ['github-issues'],
        requests: 3,
        bytesIn: 12_000,
        bytesOut: 700,
        startedAt: Date.UTC(2026, 10, 28, 9),
      },
      {
        ...base,
        host: 'example.com',
        allowed: false,
        code: 'not-granted',
        reason: 'example.com:443 is not granted to github-issues.',
        skills: ['github-issues'],
        startedAt: Date.UTC(2026, 10, 28, 9, 1),
      },
      {
        ...base,
        host: 'api.weather.test',
        allowed: false,
        code: 'needs-approval',
        reason: "api.weather.test:443 is declared by weather but not granted; it needs the person's approval.",
        skills: ['weather'],
        startedAt: Date.UTC(2026, 10, 28, 9, 2),
      },
    ],
    sqliteDatabase(db),
  );
  closeDb(db);
  server = await startOwnServer(await freePort(), {
    SKILLCHAT_DB: dbPath,
    SKILLCHAT_HOME: path.join(tmp, 'home'),
    SKILLCHAT_CONFIG: config,
    SKILLCHAT_SKILL_ROOTS: path.join(fixtures, 'skills'),
    SKILLCHAT_WATCH: '0',
    SKILLCHAT_MODEL: 'offline:builtin',
  });
});

test.afterAll(async () => {
  await server?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('a skill’s declared hosts and secrets show beside what it is granted', async ({ page }) => {
  await page.goto(`${server.origin}/admin#network`);
  const section = page.getByTestId('network');
  await expect(section.getByRole('heading', { name: 'Network' })).toBeVisible();

  const github = section.locator('[data-testid="network-skill"][data-skill="github-issues"]');
  await expect(github.locator('[data-testid="network-host"][data-host="api.github.com"]')).toHaveAttribute(
    'data-status',
    'granted',
  );
  const uploads = github.locator('[data-testid="network-host"][data-host="uploads.github.com"]');
  await expect(uploads).toHaveAttribute('data-status', 'declared-not-granted');
  await expect(uploads).toContainText('declared, not granted');
  await expect(github.locator('[data-testid="network-secret"][data-secret="GITHUB_TOKEN"]')).toContainText(
    'as a header',
  );
  await expect(github.locator('[data-testid="network-secret"][data-secret="SLACK_TOKEN"]')).toHaveAttribute(
    'data-status',
    'declared-not-granted',
  );
  // A malformed entry is shown; the skill loaded all the same.
  await expect(github.getByTestId('network-problems')).toContainText('"bad:0": the port must be a number');

  const weather = section.locator('[data-testid="network-skill"][data-skill="weather"]');
  await expect(weather.locator('[data-testid="network-host"]')).toHaveAttribute('data-status', 'declared-not-granted');
  await expect(weather.getByTestId('network-asks')).toBeVisible();
  await section.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('admin-network.png'), fullPage: false });
});

test('the egress record filters by host and outcome, and exports what it shows', async ({ page, request }) => {
  await page.goto(`${server.origin}/admin#network`);
  const record = page.getByTestId('egress-record');
  await expect(record.getByTestId('egress-row')).toHaveCount(3);
  await expect(record.getByTestId('egress-total')).toHaveText('3 events');

  await record.getByTestId('egress-filter-allowed').selectOption('no');
  await record.getByTestId('egress-filter-apply').click();
  await expect(page).toHaveURL(/allowed=no/);
  await expect(record.getByTestId('egress-row')).toHaveCount(2);
  const refused = record.locator('[data-testid="egress-row"][data-host="example.com"]');
  await expect(refused.getByTestId('egress-outcome')).toContainText('example.com:443 is not granted to github-issues.');

  await record.getByTestId('egress-filter-host').fill('api.github.com');
  await record.getByTestId('egress-filter-allowed').selectOption('');
  await record.getByTestId('egress-filter-apply').click();
  await expect(record.getByTestId('egress-row')).toHaveCount(1);
  await expect(record.getByTestId('egress-bytes-in')).toHaveText('12 KB');

  await record.getByTestId('egress-filter-host').fill('');
  await record.getByTestId('egress-filter-skill').selectOption('weather');
  await record.getByTestId('egress-filter-apply').click();
  await expect(record.getByTestId('egress-row')).toHaveCount(1);
  await expect(record.getByTestId('egress-row')).toHaveAttribute('data-code', 'needs-approval');

  const href = await record.getByTestId('egress-export').getAttribute('href');
  expect(href).toBe('/api/admin/egress/export?skill=weather');
  const exported = await request.get(`${server.origin}${href}`);
  expect(exported.status()).toBe(200);
  expect(exported.headers()['content-disposition']).toMatch(/^attachment; filename="egress-.*\.json"$/);
  const body = await exported.json();
  expect(body.filters).toEqual({ skill: 'weather' });
  expect(body.events.map((e: { host: string }) => e.host)).toEqual(['api.weather.test']);

  const bad = await request.get(`${server.origin}/api/admin/egress/export?allowed=maybe`);
  expect(bad.status()).toBe(400);
  expect(await bad.json()).toMatchObject({ code: 'bad_request:egress' });
});
