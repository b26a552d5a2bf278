import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

describe('resolveMigrationsFolder', () => {
  it('finds the migrations from another working directory', async () => {
    const { resolveMigrationsFolder } = await import('./client');
    const cwd = process.cwd();
    process.chdir(os.tmpdir());
    try {
      expect(resolveMigrationsFolder()).toBe(path.join(cwd, 'drizzle'));
    } finally {
      process.chdir(cwd);
    }
  });
});
