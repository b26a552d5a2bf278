import { describe, expect, it } from 'vitest';
import { declarationProblems, readDeclarations } from './declarations';

const skill = (metadata?: Record<string, string>) => ({ frontmatter: metadata ? { metadata } : {} });

describe('a skill declares its network and secrets in metadata', () => {
  it('reads space-separated host patterns and secret names, each once', () => {
    const declared = readDeclarations(
      skill({
        network: ' api.github.com  uploads.github.com:443\n*.example.org api.github.com',
        secrets: 'GITHUB_TOKEN  SLACK_TOKEN GITHUB_TOKEN',
      }),
    );
    expect(declared.network.map((p) => p.text)).toEqual(['api.github.com', 'uploads.github.com:443', '*.example.org']);
    expect(declared.secrets).toEqual(['GITHUB_TOKEN', 'SLACK_TOKEN']);
    expect(declarationProblems(skill({ network: 'api.github.com', secrets: 'A_B' }))).toEqual([]);
  });

  it('declares nothing without metadata', () => {
    expect(readDeclarations(skill())).toEqual({ network: [], secrets: [], networkProblems: [], secretProblems: [] });
  });

  it('a malformed entry is a warning and is left out; the good ones stay', () => {
    const s = skill({ network: 'https://api.github.com api.github.com host:0', secrets: 'github-token OK_NAME' });
    expect(readDeclarations(s).network.map((p) => p.text)).toEqual(['api.github.com']);
    expect(readDeclarations(s).secrets).toEqual(['OK_NAME']);
    const problems = declarationProblems(s);
    expect(problems.map((d) => [d.severity, d.code])).toEqual([
      ['warning', 'network-declaration'],
      ['warning', 'network-declaration'],
      ['warning', 'secrets-declaration'],
    ]);
    expect(problems[0]?.message).toBe(
      'metadata.network: "https://api.github.com" is not a host pattern: write a host name, optionally with :port (api.example.com:443). It was ignored.',
    );
    expect(problems[2]?.message).toMatch(/^metadata\.secrets: "github-token" is not a secret name/);
  });
});
