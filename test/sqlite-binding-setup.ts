/**
 * vitest globalSetup of every project: better-sqlite3's binding, built when `npm install` left it to be built
 * (bin/sqlite-binding.mjs), so `npx vitest` right after `npm install` works like `npm test` (whose pretest does it).
 */
import { ensureSqliteBinding } from '../bin/sqlite-binding.mjs';

export default async function setup(): Promise<void> {
  const status = await ensureSqliteBinding();
  if (status !== 0) throw new Error('better-sqlite3 has no binding: the lines above say why');
}
