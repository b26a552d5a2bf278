/**
 * Arrows point downhill in server/: it imports no framework (`next/*`: what needs Next lives in app/, e.g.
 * app/_lib/), and no module reaches, through its value imports, back to itself. A failing test here fails
 * `npm test`, so a cycle or a `next/headers` cannot come back quietly.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

function files(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : files(rel);
    return /\.(ts|tsx)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [rel] : [];
  });
}

/** Specifiers a file imports or re-exports; `type` imports only when `withTypes` (they vanish at run time). */
function imports(source: string, withTypes = false): string[] {
  const found: string[] = [];
  const re = /^(?:import|export)\s+(type\s)?[^'";]*?from\s+['"]([^'"]+)['"]|^import\s+['"]([^'"]+)['"]/gm;
  for (const m of source.matchAll(re)) if (withTypes || !m[1]) found.push((m[2] ?? m[3])!);
  return found;
}

function resolve(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = path.join(path.dirname(from), specifier);
  const found = [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((f) =>
    fs.existsSync(path.join(ROOT, f)),
  );
  return found ?? null;
}

/** Every cycle of value imports, each as the path from a module back to itself. */
function findCycles(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

const serverFiles = files('server');
const source = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

describe('server/ arrows', () => {
  it('finds the server files', () => {
    expect(serverFiles.length).toBeGreaterThan(100);
  });

  it('no file under server/ imports Next (next/*)', () => {
    const offenders = serverFiles.flatMap((file) =>
      imports(source(file), true)
        .filter((s) => s === 'next' || s.startsWith('next/'))
        .map((s) => `${file} -> ${s}`),
    );
    expect(offenders).toEqual([]);
  });

  it('no import cycles under server/', () => {
    const graph = new Map(
      serverFiles.map((file) => [file, imports(source(file)).flatMap((s) => resolve(file, s) ?? [])] as const),
    );
    expect(findCycles(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('the cycle finder finds a cycle, and the import reader skips type imports', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(findCycles(graph)).toEqual([['a', 'b', 'c', 'a']]);
    expect(imports("import { x } from './a';\nimport type { Y } from './b';\nexport * from './c';")).toEqual([
      './a',
      './c',
    ]);
  });
});
