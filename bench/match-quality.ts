/**
 * Matching quality on the labelled set in server/skills/fixtures/match/public-skills.json: top-1 accuracy on the
 * requests that need a skill, false activations on those that need none. Split by the fixture's tuning half (even
 * indexes) and held-out half (odd indexes), so a figure tuned into the matcher shows as a gap between the two.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createMatcher } from '../server/skills/catalog/match';

export interface LabelledSet {
  skills: Array<{ name: string; description: string }>;
  requests: Array<{ text: string; skill: string | null }>;
}

export interface QualitySplit {
  requests: number;
  top1: number;
  top1Rate: number;
  noSkill: number;
  falseActivations: number;
  misses: Array<{ text: string; expected: string | null; got: string | null }>;
}

export interface QualityFigures {
  skills: number;
  all: QualitySplit;
  tuned: QualitySplit;
  heldOut: QualitySplit;
}

export const LABELLED_SET = path.join(
  import.meta.dirname,
  '..',
  'server',
  'skills',
  'fixtures',
  'match',
  'public-skills.json',
);

export function loadLabelledSet(file = LABELLED_SET): LabelledSet {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as LabelledSet;
}

export function matchQuality(set: LabelledSet = loadLabelledSet()): QualityFigures {
  const matcher = createMatcher(set.skills);
  const split = (keep: (i: number) => boolean): QualitySplit => {
    const out: QualitySplit = { requests: 0, top1: 0, top1Rate: 0, noSkill: 0, falseActivations: 0, misses: [] };
    set.requests.forEach((r, i) => {
      if (!keep(i)) return;
      const got = matcher.match(r.text)[0]?.name ?? null;
      if (r.skill === null) {
        out.noSkill++;
        if (got !== null) out.falseActivations++;
      } else {
        out.requests++;
        if (got === r.skill) out.top1++;
      }
      if (got !== r.skill) out.misses.push({ text: r.text, expected: r.skill, got });
    });
    out.top1Rate = out.requests ? out.top1 / out.requests : 0;
    return out;
  };
  return {
    skills: set.skills.length,
    all: split(() => true),
    tuned: split((i) => i % 2 === 0),
    heldOut: split((i) => i % 2 === 1),
  };
}

if (process.argv[1] === import.meta.filename) {
  process.stdout.on('error', () => process.exit(0));
  const q = matchQuality();
  for (const [name, s] of Object.entries({ all: q.all, tuned: q.tuned, heldOut: q.heldOut })) {
    console.log(
      `${name}: top-1 ${s.top1}/${s.requests} (${(100 * s.top1Rate).toFixed(1)}%), false ${s.falseActivations}/${s.noSkill}`,
    );
  }
  for (const m of q.all.misses) console.log(`  ${m.expected ?? '-'} <- ${m.got ?? '-'}: ${m.text}`);
}
