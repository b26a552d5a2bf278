import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../config';
import { isMixedScript, lookalikeKey, lookalikeWarning, skeleton } from './confusables';
import { discoverSkills } from './discovery';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'discovery');

describe('skeleton (UTS #39)', () => {
  it('maps lookalike letters of other scripts to the same skeleton', () => {
    expect(skeleton('cоmmit-message')).toBe(skeleton('commit-message')); // Cyrillic о
    expect(skeleton('pdf-tооls')).toBe(skeleton('pdf-tools'));
  });

  it('tells different names apart', () => {
    expect(skeleton('commit-message')).not.toBe(skeleton('commit-messages'));
  });
});

describe('mixed scripts', () => {
  it('flags Latin mixed with Cyrillic or Greek', () => {
    expect(isMixedScript('cоmmit-message')).toBe(true);
    expect(isMixedScript('αlpha')).toBe(true);
  });

  it('accepts one script, digits and hyphens, and the usual CJK mixes', () => {
    expect(isMixedScript('commit-message-2')).toBe(false);
    expect(isMixedScript('коммит')).toBe(false);
    expect(isMixedScript('日本語のスキル')).toBe(false);
  });
});

describe('lookalike skill names in discovery', () => {
  it('a Cyrillic lookalike of a loaded skill loads with a warning on both, naming the other', async () => {
    const result = await discoverSkills(
      [{ path: path.join(FIXTURES, 'confusable-name'), scope: 'project', kind: 'configured' }],
      { limits: DEFAULT_LIMITS },
    );
    expect(result.skills.map((s) => s.name)).toEqual(['commit-message', 'cоmmit-message']);
    const [real, fake] = result.skills;
    expect(real!.diagnostics).toMatchObject([
      {
        severity: 'warning',
        code: 'confusable-name',
        message:
          "Another skill, 'cоmmit-message', looks the same: it has U+043E (Cyrillic) where this name has U+006F (Latin); make sure you pick the one you mean.",
      },
    ]);
    expect(fake!.diagnostics.map((d) => d.code)).toEqual(['confusable-name', 'mixed-script-name']);
    expect(fake!.diagnostics[0]!.message).toContain("'commit-message', looks the same: it has U+006F (Latin)");
    expect(fake!.diagnostics[1]!.message).toContain('Latin and Cyrillic');
    // The /admin problems list reads the scan's diagnostics.
    expect(result.diagnostics.map((d) => d.code).sort()).toEqual([
      'confusable-name',
      'confusable-name',
      'mixed-script-name',
    ]);
    // Messages reach the slash menu: no paths in them.
    for (const d of result.diagnostics) expect(d.message).not.toContain(FIXTURES);
  });
});

describe('lookalikeWarning (the slash menu field)', () => {
  it('joins the lookalike messages and is absent for an ordinary skill', async () => {
    const result = await discoverSkills(
      [{ path: path.join(FIXTURES, 'confusable-name'), scope: 'project', kind: 'configured' }],
      { limits: DEFAULT_LIMITS },
    );
    const [real, fake] = result.skills;
    expect(lookalikeWarning(real!).warning).toMatch(/^Another skill, 'cоmmit-message', looks the same/);
    expect(lookalikeWarning(fake!).warning).toContain('mixes Latin and Cyrillic');
    expect(lookalikeWarning({ diagnostics: [] })).toEqual({});
  });
});

describe('ASCII lookalikes (digits for letters and common swaps)', () => {
  async function scan(fixture: string) {
    const result = await discoverSkills(
      [{ path: path.join(FIXTURES, fixture), scope: 'project', kind: 'configured' }],
      { limits: DEFAULT_LIMITS },
    );
    const codes = (name: string) =>
      result.skills
        .find((s) => s.name === name)!
        .diagnostics.map((d) => d.code)
        .filter((c) => c !== 'mixed-script-name');
    return { result, codes };
  }

  it('folds 0/o, 1/l, 5/s, vv/w and rn/m to one key', () => {
    expect(lookalikeKey('pr0be')).toBe(lookalikeKey('probe'));
    expect(lookalikeKey('1int')).toBe(lookalikeKey('lint'));
    expect(lookalikeKey('5ql')).toBe(lookalikeKey('sql'));
    expect(lookalikeKey('svvarm')).toBe(lookalikeKey('swarm'));
    expect(lookalikeKey('modern')).toBe(lookalikeKey('modem'));
  });

  it('pr0be and the Greek prοbe are both flagged beside probe, saying where they differ', async () => {
    const { result, codes } = await scan('confusable-digit');
    expect(result.skills.map((s) => s.name).sort()).toEqual(['pr0be', 'probe', 'prοbe']);
    for (const name of ['probe', 'pr0be', 'prοbe']) expect(codes(name)).toEqual(['confusable-name', 'confusable-name']);
    const zero = result.skills.find((s) => s.name === 'pr0be')!;
    expect(zero.diagnostics[0]!.message).toBe(
      "Another skill, 'probe', looks the same: it has U+006F (Latin) where this name has U+0030 (digit); make sure you pick the one you mean.",
    );
    expect(lookalikeWarning(zero).warning).toContain("'probe'");
  });

  it('flags a five for an s, a one for an l and two v for a w', async () => {
    const { codes } = await scan('confusable-ascii-swaps');
    for (const name of ['swarm', 'svvarm', 'sql-tools', '5ql-tools', 'lint-all', '1int-all']) {
      expect(codes(name)).toEqual(['confusable-name']);
    }
  });

  it('keeps distinct names apart: v1/v2, vi/v1, k8s/kbs, mail/mall', async () => {
    const { result } = await scan('distinct-versions');
    expect(result.skills).toHaveLength(8);
    expect(result.diagnostics).toEqual([]);
  });
});
