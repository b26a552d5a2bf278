/**
 * Operator rules keyed by skill-name globs (`"pdf-*": "ask"`), shared by permissions and modes. The most specific
 * pattern wins: an exact name beats any glob, then the pattern with more literal characters; ties go to the rule
 * written first. "Specific wins" lets `"*": "deny"` sit next to `"pdf-*": "allow"` in any order.
 */
import picomatch from 'picomatch';

export interface GlobRuleMatch<V> {
  pattern: string;
  value: V;
}

function specificity(pattern: string): number {
  const literal = pattern.replace(/[*?[\]{}!()+@]/g, '').length;
  return picomatch.scan(pattern).isGlob ? literal : Number.MAX_SAFE_INTEGER;
}

const compiledGlobs = new Map<string, (name: string) => boolean>();

/**
 * One skill-name glob as every rule reads it: case-sensitive, `*` matches dots. Compiled once per pattern (a
 * grant's, a secret's: the same few patterns every run).
 */
export function skillGlob(pattern: string): (name: string) => boolean {
  let test = compiledGlobs.get(pattern);
  if (!test) {
    test = picomatch(pattern, { nocase: false, dot: true });
    if (compiledGlobs.size > 1000) compiledGlobs.clear();
    compiledGlobs.set(pattern, test);
  }
  return test;
}

export function compileGlobRules<V>(rules: Record<string, V> | undefined) {
  const compiled = Object.entries(rules ?? {}).map(([pattern, value], order) => ({
    pattern,
    value,
    order,
    score: specificity(pattern),
    test: skillGlob(pattern),
  }));
  compiled.sort((a, b) => b.score - a.score || a.order - b.order);
  return (name: string): GlobRuleMatch<V> | null => {
    const hit = compiled.find((rule) => rule.test(name));
    return hit ? { pattern: hit.pattern, value: hit.value } : null;
  };
}
