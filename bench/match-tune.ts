/**
 * `tsx bench/match-tune.ts`: grid search of the matcher's constants on the tuning half of the labelled set (even
 * request indexes) only; prints the best settings and how they do on the held-out half. Not part of `npm run bench`.
 */
import { createMatcher, type MatcherTuning } from '../server/skills/catalog/match';
import { loadLabelledSet } from './match-quality';

const set = loadLabelledSet();
const evaluate = (tuning: MatcherTuning, half: 0 | 1) => {
  const matcher = createMatcher(set.skills, tuning);
  let correct = 0;
  let falseActivations = 0;
  set.requests.forEach((r, i) => {
    if (i % 2 !== half) return;
    const got = matcher.match(r.text)[0]?.name ?? null;
    if (r.skill === null && got !== null) falseActivations++;
    if (r.skill !== null && got === r.skill) correct++;
  });
  return { correct, falseActivations };
};

const results: Array<{ tuning: MatcherTuning; correct: number; falseActivations: number }> = [];
for (const threshold of [0.4, 0.45, 0.5, 0.55, 0.6])
  for (const longQueryCap of [1.5, 2, 2.5, 3])
    for (const descriptionCredit of [0.5, 0.6, 0.75, 0.9])
      for (const unknownWeight of [0.5, 0.75, 1])
        for (const repeatedCredit of [descriptionCredit, 0.9, 1]) {
          const tuning = { threshold, longQueryCap, descriptionCredit, unknownWeight, repeatedCredit };
          results.push({ tuning, ...evaluate(tuning, 0) });
        }
// Ties go to the stricter threshold (a false activation costs more than a miss), then to counting unknown words fully.
results.sort(
  (a, b) =>
    a.falseActivations - b.falseActivations ||
    b.correct - a.correct ||
    b.tuning.threshold - a.tuning.threshold ||
    b.tuning.unknownWeight - a.tuning.unknownWeight,
);
for (const r of results.slice(0, 12)) {
  const held = evaluate(r.tuning, 1);
  console.log(
    JSON.stringify(r.tuning),
    `tuning half ${r.correct} right, ${r.falseActivations} false;`,
    `held out ${held.correct} right, ${held.falseActivations} false`,
  );
}
