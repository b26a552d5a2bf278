/** Every code the scanner emits is on the closed list, found in the sources that emit them. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIAGNOSTIC_CODES, isProblem } from './diagnostics';

describe('diagnostic codes', () => {
  it('the list is unique and kebab-case', () => {
    expect(new Set(DIAGNOSTIC_CODES).size).toBe(DIAGNOSTIC_CODES.length);
    for (const code of DIAGNOSTIC_CODES) expect(code).toMatch(/^[a-z0-9]+(-[a-z0-9]+)+$/);
  });

  it('each listed code is emitted somewhere in the skills engine', () => {
    // The engine is server/skills/ and its rooms (load/, discovery/, ...); fixtures hold no sources.
    const dir = path.join(import.meta.dirname, '..');
    const sources = fs
      .readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => !f.startsWith('fixtures') && f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .filter((f) => f !== path.join('load', 'diagnostics.ts'))
      .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
      // MCP servers' served skills are a source of skills outside this room; a skill's egress declarations are
      // checked beside the grants.
      .concat(fs.readFileSync(path.join(dir, '..', 'mcp', 'skills.ts'), 'utf8'))
      .concat(fs.readFileSync(path.join(dir, '..', 'egress', 'declarations.ts'), 'utf8'))
      .join('\n');
    expect(DIAGNOSTIC_CODES.filter((code) => !sources.includes(`'${code}'`))).toEqual([]);
  });

  it('info is not a problem; warnings and errors are', () => {
    expect([
      isProblem({ severity: 'info' }),
      isProblem({ severity: 'warning' }),
      isProblem({ severity: 'error' }),
    ]).toEqual([false, true, true]);
  });
});
