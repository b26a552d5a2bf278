import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';

// @ai-sdk/openai throws at import time on an empty OPENAI_BASE_URL; the provider must treat empty as unset.
it('an empty OPENAI_BASE_URL selects the offline model instead of crashing', () => {
  const root = path.resolve(import.meta.dirname, '../..');
  const result = spawnSync(
    path.join(root, 'node_modules/.bin/tsx'),
    ['-e', "import('./server/model/provider.ts').then((m) => console.log(m.getLanguageModel().label))"],
    { cwd: root, env: { ...process.env, OPENAI_BASE_URL: '', OPENAI_API_KEY: '' }, encoding: 'utf8' },
  );
  expect(result.stderr).not.toContain('baseURL must be a non-empty string');
  expect(result.stdout.trim()).toBe('Offline model (built-in)');
});
