import { describe, expect, it } from 'vitest';
import { isInside, relativeInside } from './paths';

describe('relativeInside', () => {
  it('is the posix path under the root, or null outside it, never a string-prefix match', () => {
    expect(relativeInside('/x/skill', '/x/skill')).toBe('');
    expect(relativeInside('/x/skill', '/x/skill/references/a.md')).toBe('references/a.md');
    expect(relativeInside('/x/skill', '/x/skill-evil/a.md')).toBeNull();
    expect(relativeInside('/x/skill', '/x')).toBeNull();
    expect(relativeInside('/x/skill', '/x/skill/..foo')).toBe('..foo');
    expect(isInside('/x/skill', '/etc/passwd')).toBe(false);
  });
});
