/**
 * The app on PostgreSQL: `start()` opens the connection that LISTENs for a Stop pressed on another instance, and
 * `close()` ends it with the pool, so the server keeps no session of ours.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, inject, it } from 'vitest';
import { createScratchDatabase } from '../test/pg-scratch';
import { until } from '../test/until';
import { createApp } from './app';
import { loadConfig } from './config';
import { buildExposurePolicy } from './security/exposure';

const baseUrl = inject('pgUrl');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-app-pg-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe.skipIf(!baseUrl)('createApp on PostgreSQL', () => {
  it('close() ends the LISTEN connection and the pool', async () => {
    const url = await createScratchDatabase(baseUrl, 'app');
    const database = new URL(url).pathname.slice(1);
    const config = loadConfig({
      appDir: tmp,
      home: tmp,
      env: { DATABASE_URL: url, SKILLCHAT_SKILL_ROOTS: path.join(tmp, 'skills') },
    });
    const observer = new pg.Client({ connectionString: baseUrl });
    await observer.connect();
    const sessions = async (query?: string) =>
      Number(
        (
          await observer.query<{ n: string }>(
            'SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND ($2::text IS NULL OR query = $2)',
            [database, query ?? null],
          )
        ).rows[0]?.n,
      );
    try {
      const app = await createApp(config, {
        env: {},
        exposure: () => buildExposurePolicy({ env: {}, allowedHosts: [] }),
      });
      await app.start();
      await until(async () => ((await sessions('LISTEN skillchat_stop')) === 1 ? true : undefined));
      await app.close();
      await until(async () => ((await sessions()) === 0 ? true : undefined));
    } finally {
      await observer.end();
    }
  });
});
