/**
 * The browser never loads a module that touches the filesystem or the database: components (and any `'use client'`
 * file) import from `server/` only types, or one of the few modules below, which import nothing themselves.
 * A failing test here fails `npm test`, so a client component cannot quietly pull `node:fs` into the bundle.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Plain data and pure functions, shared by server and browser. */
const CLIENT_SAFE = [
  'server/tools/names',
  'server/db/title',
  'server/skills/invocation',
  'server/egress/summary-line',
  'server/tools/shell-prefix',
  'server/skills/load/hidden-text',
];

function files(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return files(rel);
    return /\.(ts|tsx)$/.test(e.name) && !/\.test\.ts$/.test(e.name) ? [rel] : [];
  });
}

/** Value imports (not `import type`) and re-exports of a file, as written. */
function valueImports(source: string): string[] {
  const found: string[] = [];
  const re = /^(?:import|export)\s+(?!type\s)[^'";]*?from\s+['"]([^'"]+)['"]|^import\s+['"]([^'"]+)['"]/gm;
  for (const m of source.matchAll(re)) found.push((m[1] ?? m[2])!);
  return found;
}

function serverModule(specifier: string): string | null {
  if (specifier.startsWith('@/server/')) return specifier.slice(2);
  return null;
}

const clientFiles = [
  ...files('components'),
  ...files('app').filter((f) => /^['"]use client['"]/.test(fs.readFileSync(path.join(ROOT, f), 'utf8'))),
];

describe('the client boundary', () => {
  it('finds the client files', () => {
    expect(clientFiles.length).toBeGreaterThan(20);
  });

  it.each(clientFiles)('%s imports only types, or client-safe modules, from server/', (file) => {
    const source = fs.readFileSync(path.join(ROOT, file), 'utf8');
    const server = valueImports(source).flatMap((s) => serverModule(s) ?? []);
    expect(server.filter((m) => !CLIENT_SAFE.includes(m))).toEqual([]);
  });

  it.each(CLIENT_SAFE)('%s imports nothing', (module) => {
    expect(valueImports(fs.readFileSync(path.join(ROOT, `${module}.ts`), 'utf8'))).toEqual([]);
  });

  it('catches a value import from the database', () => {
    expect(valueImports("import { getDb } from '@/server/db';\nimport type { X } from '@/server/app';")).toEqual([
      '@/server/db',
    ]);
  });
});
