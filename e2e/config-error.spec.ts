/**
 * A plain `next start` (not `npm start`) with an invalid skillchat.config.json stops at once with the reason on its
 * console, as `npm start` does, instead of staying up and answering every request with a bare 500.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { freePort, startOwnServer } from './own-server';

test('next start with an unknown key in the config file refuses to start and says why', async () => {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-badconfig-')));
  try {
    const config = path.join(tmp, 'skillchat.config.json');
    fs.writeFileSync(config, JSON.stringify({ extraSkillRoot: ['typo'] }));
    fs.mkdirSync(path.join(tmp, 'home'));
    const started = startOwnServer(await freePort(), {
      SKILLCHAT_CONFIG: config,
      SKILLCHAT_DB: path.join(tmp, 'bad.db'),
      SKILLCHAT_HOME: path.join(tmp, 'home'),
    });
    const failure = await started.then(
      async (server) => {
        await server.stop();
        return 'it started';
      },
      (error: Error) => error.message,
    );
    expect(failure).toContain('next start exited (1)');
    expect(failure).toContain('skillchat: configuration error');
    expect(failure).toContain('Unrecognized key: "extraSkillRoot"');
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
