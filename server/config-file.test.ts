import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'config-file-')));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function load(name: string, config: unknown) {
  const appDir = path.join(tmp, name);
  fs.mkdirSync(appDir, { recursive: true });
  fs.writeFileSync(path.join(appDir, 'skillchat.config.json'), JSON.stringify(config));
  return loadConfig({ appDir, home: path.join(tmp, 'home'), env: {} });
}

describe('skillchat.config.json', () => {
  it('fills every default of the parts given, and keeps what is set', () => {
    const config = load('defaults', { limits: { maxDepth: 3 }, sandbox: { memoryMb: 256 }, install: {} });
    expect(config.limits.maxDepth).toBe(3);
    expect(config.limits.maxSkillFileBytes).toBeGreaterThan(0);
    expect(config.execution.sandbox).toMatchObject({ memoryMb: 256, backend: 'auto', uid: 100_000 });
    expect(config.install).toMatchObject({ maxFiles: 1000, maxRatio: 100 });
  });

  // zod/mini says only "Invalid input" until a locale is configured (server/config-parts.ts): each mistake must be
  // named, with its path, in words a person can act on.
  it('names each mistake with its path and what was expected', () => {
    const mistakes = {
      limits: { maxDepth: 50, hiddenText: 'hide' },
      sandbox: { memoryMb: 1.5 },
      skillRoots: [''],
      server: { port: 0 },
      colour: 'blue',
    };
    let error: unknown;
    try {
      load('mistakes', mistakes);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/^skillchat\.config\.json: /);
    expect(message).toContain('limits.maxDepth: Too big: expected number to be <=20');
    expect(message).toContain('limits.hiddenText: Invalid option: expected one of "warn"|"block"');
    expect(message).toContain('sandbox.memoryMb: Invalid input: expected int, received number');
    expect(message).toContain('server.port: Too small: expected number to be >=1');
    expect(message).toContain('(root): Unrecognized key: "colour"');
    expect(message).toMatch(/skillRoots\.0: /);
  });
});
