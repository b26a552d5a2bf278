import { describe, expect, it } from 'vitest';
import { argumentHint, catalogDescription, splitArguments, substituteArguments } from './arguments';

describe('substituteArguments', () => {
  it('replaces $ARGUMENTS with the whole text and $1..$9 with each argument', () => {
    const body = 'Fix issue $1 with priority $2.\nAll: $ARGUMENTS\nMissing: [$3]';
    expect(substituteArguments(body, ' 123  high ')).toBe(
      'Fix issue 123 with priority high.\nAll: 123  high\nMissing: []',
    );
  });

  it('keeps quoted arguments together', () => {
    expect(splitArguments(`"login page" 'x y' z`)).toEqual(['login page', 'x y', 'z']);
    expect(substituteArguments('Page: $1, then $2', '"login page" now')).toBe('Page: login page, then now');
  });

  it('does not substitute inside substituted text', () => {
    expect(substituteArguments('A=$1 B=$2', '$2 second')).toBe('A=$2 B=second');
  });

  it('appends the arguments when the instructions have no placeholder', () => {
    expect(substituteArguments('Do it.\n', 'now please')).toBe('Do it.\n\nARGUMENTS: now please\n');
    expect(substituteArguments('Do it.\n', '  ')).toBe('Do it.\n');
  });
});

describe('catalog and slash-menu extensions', () => {
  it('appends when_to_use to the description', () => {
    expect(
      catalogDescription({ description: 'Fills PDF forms.', frontmatter: { when_to_use: 'When a form is attached.' } }),
    ).toBe('Fills PDF forms. When a form is attached.');
    expect(catalogDescription({ description: 'Fills PDF forms.', frontmatter: {} })).toBe('Fills PDF forms.');
  });

  it('gives the argument hint for the slash menu', () => {
    expect(argumentHint({ frontmatter: { 'argument-hint': ' [issue-number] ' } })).toBe('[issue-number]');
    expect(argumentHint({ frontmatter: {} })).toBeUndefined();
  });
});
