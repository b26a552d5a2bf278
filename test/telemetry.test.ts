/**
 * Next.js telemetry stays off however the app is built or started: next.config.ts turns it off for any `next`
 * command that loads the config (a hand-run `npx next build` included), and each way we start Next sets the variable
 * itself as well.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('Next.js telemetry', () => {
  it('is off once next.config.ts is loaded, as Next itself decides', async () => {
    vi.stubEnv('NEXT_TELEMETRY_DISABLED', undefined);
    await import('../next.config');
    // Next's own class, built the way `next build` builds it after loading the config.
    const { Telemetry } = await import('next/dist/telemetry/storage.js');
    const distDir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-telemetry-'));
    try {
      expect(new Telemetry({ distDir }).isEnabled).toBe(false);
    } finally {
      fs.rmSync(distDir, { recursive: true, force: true });
    }
  });

  it('is off in every package script that runs next, in npm start, CI and the image', () => {
    const scripts: Record<string, string> = JSON.parse(read('package.json')).scripts;
    const runningNext = Object.entries(scripts).filter(([, command]) => /(^|\s)next\s/.test(command));
    expect(runningNext.map(([name]) => name).sort()).toEqual(['build', 'dev']);
    for (const [, command] of runningNext) expect(command).toMatch(/^NEXT_TELEMETRY_DISABLED=1 next /);
    // bin/start.ts: both the build and the server it starts.
    expect(read('bin/start.ts').match(/NEXT_TELEMETRY_DISABLED: '1'/g)).toHaveLength(2);
    expect(read('.ci/run')).toMatch(/^export NEXT_TELEMETRY_DISABLED=1$/m);
    expect(read('deploy/Dockerfile')).toMatch(/^ENV NEXT_TELEMETRY_DISABLED=1$/m);
  });
});
