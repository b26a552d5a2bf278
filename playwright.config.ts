/**
 * End-to-end tests against a production build (`next build` + `next start`) with its own database and home folder,
 * driven by the system's Chromium: browsers are never downloaded (no network here).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';

const root = path.dirname(fileURLToPath(import.meta.url));
const port = Number(process.env.E2E_PORT ?? 3100);
const e2eDir = path.join(root, '.e2e');

export default defineConfig({
  testDir: './e2e',
  outputDir: './test-results',
  workers: 1,
  fullyParallel: false,
  retries: process.env.CI ? 1 : 0,
  forbidOnly: !!process.env.CI,
  timeout: 90_000,
  expect: { timeout: 20_000 },
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    viewport: { width: 1280, height: 820 },
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
  webServer: {
    // Playwright starts the web server before any globalSetup, so the fresh database is made here. A base URL
    // from the person's shell would select a real endpoint (and @ai-sdk/openai refuses an empty one): drop it.
    command: [
      'unset OPENAI_BASE_URL OPENAI_MODEL',
      'rm -rf .e2e',
      'mkdir -p .e2e/home',
      // better-sqlite3's binding, if `npm install` left it to be built (bin/sqlite-binding.mjs); `npm test` did it.
      'node bin/sqlite-binding.mjs',
      // Next's own type check is skipped: `npm test` runs tsc over the same sources just before.
      'SKILLCHAT_BUILD_SKIP_TYPECHECK=1 npx next build',
      `npx next start -H 127.0.0.1 -p ${port}`,
    ].join(' && '),
    cwd: root,
    url: `http://127.0.0.1:${port}/api/status`,
    // The build alone takes 2-3 minutes on a quiet 2-core machine and much longer on a busy one.
    timeout: 15 * 60_000,
    reuseExistingServer: !process.env.CI,
    stdout: 'pipe',
    stderr: 'pipe',
    env: {
      SKILLCHAT_DB: path.join(e2eDir, 'e2e.db'),
      // The person's own ~/.agents/skills and ~/.skillchat must not leak into the tests.
      SKILLCHAT_HOME: path.join(e2eDir, 'home'),
      // Empty means "not set": the built-in offline model answers, deterministically.
      OPENAI_API_KEY: '',
      // Slow enough that Stop lands mid-answer, fast enough that the suite stays short.
      SKILLCHAT_OFFLINE_CHUNK_DELAY_MS: '30',
      NEXT_TELEMETRY_DISABLED: '1',
    },
  },
});
