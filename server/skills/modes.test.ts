import { describe, expect, it } from 'vitest';
import {
  listedInCatalog,
  modelMayActivate,
  resolveMode,
  resolveModes,
  SKILL_MODES,
  searchable,
  userInvocable,
} from './modes';

const config = (modes: Record<string, (typeof SKILL_MODES)[number]>) => ({ skills: { modes } });

describe('resolveMode', () => {
  it('is auto without rules', () => {
    expect(resolveMode('pdf', {})).toBe('auto');
    expect(resolveMode('pdf', config({}))).toBe('auto');
  });

  it('an exact name beats a glob, and a more literal glob beats a looser one, in any order', () => {
    const rules = config({ '*': 'search', 'pdf-*': 'pinned', 'pdf-legacy': 'off', 'legacy-*': 'off' });
    expect(resolveMode('pdf-reader', rules)).toBe('pinned');
    expect(resolveMode('pdf-legacy', rules)).toBe('off');
    expect(resolveMode('legacy-csv', rules)).toBe('off');
    expect(resolveMode('docx', rules)).toBe('search');
    const reversed = config({ 'legacy-*': 'off', 'pdf-legacy': 'off', 'pdf-*': 'pinned', '*': 'search' });
    for (const name of ['pdf-reader', 'pdf-legacy', 'legacy-csv', 'docx']) {
      expect(resolveMode(name, reversed)).toBe(resolveMode(name, rules));
    }
  });

  it('equally specific globs: the first written wins', () => {
    expect(resolveMode('ab', config({ 'a*': 'manual', '*b': 'off' }))).toBe('manual');
    expect(resolveMode('ab', config({ '*b': 'off', 'a*': 'manual' }))).toBe('off');
  });

  it('a run-time override beats the config', () => {
    const rules = config({ 'pdf-*': 'pinned' });
    expect(resolveMode('pdf-reader', rules, new Map([['pdf-reader', 'off']]))).toBe('off');
    expect(resolveModes([{ name: 'pdf-reader' }, { name: 'csv' }], rules, new Map([['csv', 'manual']]))).toEqual(
      new Map([
        ['pdf-reader', 'pinned'],
        ['csv', 'manual'],
      ]),
    );
  });
});

describe('what each mode allows', () => {
  it('matches the table in modes.ts', () => {
    const table = Object.fromEntries(
      SKILL_MODES.map((m) => [m, [listedInCatalog(m), searchable(m), modelMayActivate(m), userInvocable(m)]]),
    );
    expect(table).toEqual({
      pinned: [true, true, true, true],
      auto: [true, true, true, true],
      search: [false, true, true, true],
      manual: [false, false, false, true],
      off: [false, false, false, false],
    });
  });
});
