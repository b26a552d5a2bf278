/**
 * What a skill says it needs: `metadata.network` (space-separated host patterns) and `metadata.secrets`
 * (space-separated secret names). Plain metadata strings, so skills-ref's validation is unchanged and the skill
 * loads whatever they hold; a malformed entry is a warning (`declarationProblems`) shown on the skill's /admin page,
 * in the Network section and by `skills list`. A declaration grants nothing: only the operator's config does.
 */
import type { Diagnostic, Skill } from '../skills/types';
import { SECRET_NAME } from './config';
import { type HostPattern, parsePattern } from './patterns';

export interface SkillDeclarations {
  /** The well-formed host patterns, in the order written. */
  network: HostPattern[];
  /** The well-formed secret names, in the order written, each once. */
  secrets: string[];
  /** One sentence per malformed entry. */
  networkProblems: string[];
  secretProblems: string[];
}

function words(value: string | undefined): string[] {
  return (value ?? '').split(/\s+/).filter((w) => w !== '');
}

export function readDeclarations(skill: Pick<Skill, 'frontmatter'>): SkillDeclarations {
  const metadata = skill.frontmatter.metadata ?? {};
  const declared: SkillDeclarations = { network: [], secrets: [], networkProblems: [], secretProblems: [] };
  const seenHosts = new Set<string>();
  for (const word of words(metadata.network)) {
    const parsed = parsePattern(word);
    if (!parsed.ok) declared.networkProblems.push(parsed.problem);
    else if (!seenHosts.has(parsed.pattern.text)) {
      seenHosts.add(parsed.pattern.text);
      declared.network.push(parsed.pattern);
    }
  }
  for (const word of words(metadata.secrets)) {
    if (!SECRET_NAME.test(word)) {
      declared.secretProblems.push(
        `"${word}" is not a secret name: use A-Z, 0-9 and _, starting with a letter or _ (GITHUB_TOKEN).`,
      );
    } else if (!declared.secrets.includes(word)) declared.secrets.push(word);
  }
  return declared;
}

/** The malformed entries of a skill's declarations as warnings, beside its load diagnostics. */
export function declarationProblems(skill: Pick<Skill, 'frontmatter'>): Diagnostic[] {
  const declared = readDeclarations(skill);
  return [
    ...declared.networkProblems.map(
      (problem): Diagnostic => ({
        severity: 'warning',
        code: 'network-declaration',
        message: `metadata.network: ${problem} It was ignored.`,
        hint: 'Write space-separated host patterns: `network: "api.example.com *.example.org host:8443"`.',
      }),
    ),
    ...declared.secretProblems.map(
      (problem): Diagnostic => ({
        severity: 'warning',
        code: 'secrets-declaration',
        message: `metadata.secrets: ${problem} It was ignored.`,
        hint: 'Write space-separated names: `secrets: "GITHUB_TOKEN SLACK_TOKEN"`.',
      }),
    ),
  ];
}
