import { describe, expect, it } from 'vitest';
import { compileGlobRules } from './globs';

describe('compileGlobRules', () => {
  const rules = compileGlobRules({ '*': 'deny', 'pdf-*': 'ask', 'pdf-reader': 'allow', 'p*': 'allow' });

  it('prefers an exact name, then the most literal pattern, whatever the order', () => {
    expect(rules('pdf-reader')).toEqual({ pattern: 'pdf-reader', value: 'allow' });
    expect(rules('pdf-writer')).toEqual({ pattern: 'pdf-*', value: 'ask' });
    expect(rules('png')).toEqual({ pattern: 'p*', value: 'allow' });
    expect(rules('csv')).toEqual({ pattern: '*', value: 'deny' });
  });

  it('returns null when nothing matches and ties go to the first rule', () => {
    expect(compileGlobRules({ 'a*': 1 })('b')).toBeNull();
    expect(compileGlobRules({ 'a*': 1, '*a': 2 })('aa')?.value).toBe(1);
  });
});
