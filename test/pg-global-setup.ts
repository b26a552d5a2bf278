/**
 * vitest globalSetup of the `pg` project: one scratch PostgreSQL server for the whole run (see `pg-scratch.ts`).
 * Test files read its URL with `inject('pgUrl')` and make their own database with `createScratchDatabase`.
 * With no PostgreSQL binaries on the machine the URL is empty and the PostgreSQL tests skip, loudly.
 */
import type { TestProject } from 'vitest/node';
import { startScratchPostgres } from './pg-scratch';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Empty when PostgreSQL is not installed. */
    pgUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const server = await startScratchPostgres();
  if (!server) {
    const bar = '!'.repeat(78);
    console.warn(
      `\n${bar}\n  PostgreSQL server binaries not found (no initdb under /usr/lib/postgresql/*/bin, PG_BIN unset):\n  SKIPPING every *.pg.test.ts. Install Debian's \`postgresql\` package (\`npm test\` does first).\n${bar}\n`,
    );
    project.provide('pgUrl', '');
    return () => {};
  }
  project.provide('pgUrl', server.url);
  return () => server.stop();
}
