import { describe, expect, it } from 'vitest';
import { SKILL_MODES } from '../config';
import { listedInCatalog, modelMayActivate, resolveMode, searchable, userInvocable } from './modes';

const config = (modes: Record<string, (typeof SKILL_MODES)[number]>) => ({ skills: { modes } });

describe('resolveMode', () => {
  it('is auto without rules', () => {
    expect(resolveMode('pdf', {}).mode).toBe('auto');
    expect(resolveMode('pdf', config({})).mode).toBe('auto');
  });

  it('an exact name beats a glob, and a more literal glob beats a looser one, in any order', () => {
    const rules = config({ '*': 'search', 'pdf-*': 'pinned', 'pdf-legacy': 'off', 'legacy-*': 'off' });
    expect(resolveMode('pdf-reader', rules).mode).toBe('pinned');
    expect(resolveMode('pdf-legacy', rules).mode).toBe('off');
    expect(resolveMode('legacy-csv', rules).mode).toBe('off');
    expect(resolveMode('docx', rules).mode).toBe('search');
    const reversed = config({ 'legacy-*': 'off', 'pdf-legacy': 'off', 'pdf-*': 'pinned', '*': 'search' });
    for (const name of ['pdf-reader', 'pdf-legacy', 'legacy-csv', 'docx']) {
      expect(resolveMode(name, reversed).mode).toBe(resolveMode(name, rules).mode);
    }
  });

  it('equally specific globs: the first written wins', () => {
    expect(resolveMode('ab', config({ 'a*': 'manual', '*b': 'off' })).mode).toBe('manual');
    expect(resolveMode('ab', config({ '*b': 'off', 'a*': 'manual' })).mode).toBe('off');
  });

  it('a run-time override beats the config', () => {
    const rules = config({ 'pdf-*': 'pinned' });
    expect(resolveMode('pdf-reader', rules, new Map([['pdf-reader', 'off']])).mode).toBe('off');
  });

  it('tells an override from the config rule that matched and from the default', () => {
    const rules = config({ 'pdf-*': 'pinned', legacy: 'off', '*': 'auto' });
    const overrides = new Map([
      ['pdf-reader', 'manual' as const],
      ['csv', 'auto' as const],
    ]);
    expect(resolveMode('pdf-writer', rules, overrides)).toEqual({
      mode: 'pinned',
      source: 'config',
      pattern: 'pdf-*',
      configMode: 'pinned',
    });
    expect(resolveMode('legacy', rules, overrides)).toEqual({
      mode: 'off',
      source: 'config',
      pattern: 'legacy',
      configMode: 'off',
    });
    expect(resolveMode('pdf-reader', rules, overrides)).toEqual({
      mode: 'manual',
      source: 'override',
      pattern: 'pdf-*',
      configMode: 'pinned',
    });
    // Set on /admin to what the config says anyway: still an override, which "config default" would remove.
    expect(resolveMode('csv', rules, overrides)).toMatchObject({ mode: 'auto', source: 'override', pattern: '*' });
    expect(resolveMode('x', {})).toEqual({ mode: 'auto', source: 'default', pattern: null, configMode: 'auto' });
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
