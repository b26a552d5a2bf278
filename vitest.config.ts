import path from 'node:path';
import { defineConfig } from 'vitest/config';

const unitInclude = [
  'test/**/*.test.ts',
  'server/**/*.test.ts',
  'bin/**/*.test.ts',
  'components/**/*.test.ts',
  'app/**/*.test.ts',
];
const pgTests = '**/*.pg.test.ts';

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    environment: 'node',
    testTimeout: 30_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: unitInclude,
          exclude: [pgTests, '**/node_modules/**'],
          globalSetup: ['test/sqlite-binding-setup.ts'],
        },
      },
      // Tests against a real PostgreSQL server: one scratch cluster for the run, started by the global setup.
      {
        extends: true,
        test: {
          name: 'pg',
          include: unitInclude.map((glob) => glob.replace(/\.test\.ts$/, '.pg.test.ts')),
          globalSetup: ['test/sqlite-binding-setup.ts', 'test/pg-global-setup.ts'],
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
