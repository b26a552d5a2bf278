import { describe, expect, it } from 'vitest';
import { parseInvocation, parseInvocations, splitInvocation } from './invocation';

const known = new Set(['pdf', 'csv-to-json', 'навык', '技能', 'café']);
const isKnown = (name: string) => known.has(name);
const parse = (text: string) => parseInvocation(text, isKnown);

describe('parseInvocation', () => {
  it.each([
    ['/pdf', { name: 'pdf', rest: '' }],
    ['/pdf   ', { name: 'pdf', rest: '' }],
    ['/pdf extract page 2', { name: 'pdf', rest: 'extract page 2' }],
    ['  /pdf  extract  ', { name: 'pdf', rest: 'extract' }],
    ['\n/csv-to-json\nline one\nline two\n', { name: 'csv-to-json', rest: 'line one\nline two' }],
    ['/pdf\ttabbed', { name: 'pdf', rest: 'tabbed' }],
    ['/навык сделай', { name: 'навык', rest: 'сделай' }],
    ['/技能 做', { name: '技能', rest: '做' }],
    // NFD "café" (e + combining acute) is the same name once normalised.
    ['/cafe\u0301 please', { name: 'café', rest: 'please' }],
    ['/pdf see /etc/passwd', { name: 'pdf', rest: 'see /etc/passwd' }],
  ])('%j is an invocation', (text, expected) => {
    expect(parse(text)).toEqual(expected);
  });

  it.each([
    ['/', 'a slash alone'],
    ['/ pdf', 'a space after the slash'],
    ['//pdf', 'a double slash'],
    ['/pdf/other', 'a path starting with a known name'],
    ['/etc/passwd', 'a path'],
    ['/unknown do it', 'an unknown name'],
    ['/PDF', 'names are exact'],
    ['/pdf,', 'punctuation glued to the name'],
    ['please /pdf', 'not at the start'],
    ['pdf', 'no slash'],
    ['', 'empty'],
  ])('%j is plain text (%s)', (text) => {
    expect(parse(text)).toBeNull();
  });

  it('asks isKnown only about the typed name', () => {
    const asked: string[] = [];
    parseInvocation('/pdf rest', (n) => {
      asked.push(n);
      return true;
    });
    expect(asked).toEqual(['pdf']);
  });
});

describe('splitInvocation', () => {
  it('finds the command of any name, known or not, as the browser shows it', () => {
    expect(splitInvocation('/навык сделай')).toEqual({ name: 'навык', rest: 'сделай', command: '/навык' });
    expect(splitInvocation('  /shrug')).toEqual({ name: 'shrug', rest: '', command: '/shrug' });
    expect(splitInvocation('/etc/passwd')).toBeNull();
    expect(splitInvocation('plain text')).toBeNull();
  });
});

describe('parseInvocations', () => {
  const known = (name: string) => ['a', 'b', 'pdf'].includes(name);

  it('takes several leading /names, in order and once each, then the request', () => {
    expect(parseInvocations('/a /b do X', known)).toEqual({ names: ['a', 'b'], rest: 'do X' });
    expect(parseInvocations('  /b\n/a /b  summarise\nthis', known)).toEqual({
      names: ['b', 'a'],
      rest: 'summarise\nthis',
    });
    expect(parseInvocations('/pdf', known)).toEqual({ names: ['pdf'], rest: '' });
  });

  it('stops at the first word that is not a known /name', () => {
    expect(parseInvocations('/a /etc/passwd please', known)).toEqual({ names: ['a'], rest: '/etc/passwd please' });
    expect(parseInvocations('/a /shrug /b', known)).toEqual({ names: ['a'], rest: '/shrug /b' });
    expect(parseInvocations('/shrug /a', known)).toBeNull();
    expect(parseInvocations('do /a', known)).toBeNull();
  });
});
