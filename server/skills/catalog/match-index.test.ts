/**
 * The packed index (`skills match` keeps it between runs) must rank exactly as the index built from the skills: the
 * same names in the same order with the same scores, for complete messages (match) and while typing (rank).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { random, skillFileText, skillName } from '../../../bench/generate';
import { v8Shapes } from '../testing';
import { createMatcher, type Matcher, matcherOver } from './match';
import { buildIndex, decodeIndex, encodeIndex } from './match-index';

type Skill = { name: string; description: string };

const labelled = JSON.parse(
  fs.readFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'match', 'public-skills.json'), 'utf8'),
) as { skills: Skill[]; requests: Array<{ text: string }> };

/** Skills as bench/generate.ts writes them (the catalog `npm run bench` times), without the files. */
function generatedCatalog(count: number): Skill[] {
  const rnd = random(7);
  return Array.from({ length: count }, (_, i) => {
    const name = skillName(rnd, i);
    const line = skillFileText(name, rnd)
      .split('\n')
      .find((l) => l.startsWith('description: '))!;
    return { name, description: JSON.parse(line.slice('description: '.length)) as string };
  });
}

const ACRONYMS: Skill[] = [
  { name: 'pull-requests', description: 'Review a pull request and its diffs before merging.' },
  { name: 'pr-labels', description: 'Label each PR by the files it touches.' },
  { name: 'mcp-builder', description: 'Build MCP servers that give LLMs tools.' },
  { name: 'mcp-spec', description: 'Explains the Model Context Protocol specification and its history.' },
  { name: 'slides', description: 'Build a slide deck ("deck", "presentation") for a meeting.' },
  { name: 'émoji-😀-picker', description: 'Pick an emoji for a message; 表情 and 絵文字 too.' },
];

/** The message and every way of typing it: each prefix, as the slash menu asks while the person types. */
const withPrefixes = (texts: readonly string[]) =>
  texts.flatMap((text) => [text, ...Array.from({ length: text.length - 1 }, (_, k) => text.slice(0, k + 1))]);

function packed(skills: readonly Skill[]): Matcher {
  const bytes = encodeIndex(buildIndex(skills));
  // As the kept file gives it: after a header, so not at the start of its buffer (and not 4-byte aligned).
  const file = new Uint8Array(bytes.length + 3);
  file.set(bytes, 3);
  return matcherOver(decodeIndex(file.subarray(3)));
}

function expectSameRanking(skills: readonly Skill[], texts: readonly string[]) {
  const fresh = createMatcher(skills);
  const kept = packed(skills);
  for (const text of texts) {
    expect({ text, match: kept.match(text) }).toEqual({ text, match: fresh.match(text) });
    expect({ text, rank: kept.rank(text) }).toEqual({ text, rank: fresh.rank(text) });
  }
}

describe('the packed matcher index', () => {
  it('ranks the labelled set exactly as the index built from its skills', () => {
    const texts = labelled.requests.map((r) => r.text);
    expectSameRanking(labelled.skills, [...texts, ...withPrefixes(texts.slice(0, 12)), 'PR', 'pull request', 'MCP']);
  });

  it('ranks acronyms and their expansions, prefixes and non-Latin names alike', () => {
    expectSameRanking(ACRONYMS, [
      ...withPrefixes([
        'review this PR',
        'open a pull request',
        'what is MCP',
        'build a model context protocol server',
      ]),
      'émoji',
      '表情',
      '😀',
      '',
    ]);
  });

  it('ranks a generated catalog of 2,000 skills alike', () => {
    const skills = generatedCatalog(2_000);
    expectSameRanking(skills, [
      ...withPrefixes(['merge these PDF files into one report', 'docker deploy']),
      'summarize weather data for the calendar',
      'PDF',
      'kub',
    ]);
  });

  it('keeps its terms as strings of their own, not slices of the descriptions they were read from', () => {
    const { isSlice } = v8Shapes();
    const description = `${'Counterbalancing '.repeat(20)}the internationalization of extraordinarily long words.`;
    const { vocabulary } = buildIndex([{ name: 'long-words', description }]);
    const long = vocabulary.filter((term) => term.length >= 13);
    expect(long).toEqual(['counterbalanc', 'extraordinarily', 'internationalizat']);
    expect(long.filter(isSlice)).toEqual([]);
  });

  it('keeps an empty catalog', () => {
    expectSameRanking([], ['', 'pdf', 'convert csv']);
  });

  it('refuses bytes that are not a whole index', () => {
    const bytes = encodeIndex(buildIndex(ACRONYMS));
    expect(() => decodeIndex(bytes.subarray(0, bytes.length - 1))).toThrow();
    expect(() => decodeIndex(bytes.subarray(0, 20))).toThrow();
    expect(() => decodeIndex(new TextEncoder().encode('{"names":[]}'))).toThrow();
    const garbledJson = bytes.slice();
    garbledJson[14] = 0x7b; // "{" inside the JSON
    expect(() => decodeIndex(garbledJson)).toThrow();
    const garbledOffsets = bytes.slice();
    const offsets = Math.ceil((12 + new DataView(bytes.buffer).getUint32(8, true)) / 4) * 4;
    new DataView(garbledOffsets.buffer).setInt32(offsets + 4, 0x7fffffff, true); // postingStart[1]
    expect(() => decodeIndex(garbledOffsets)).toThrow();
  });

  it('ranks without failing or hanging when the numbers past the offsets are garbled', () => {
    const bytes = encodeIndex(buildIndex(ACRONYMS));
    for (const fill of [0x00, 0x7f, 0xff]) {
      const garbled = bytes.slice();
      garbled.fill(fill, garbled.length - 200);
      const matcher = matcherOver(decodeIndex(garbled));
      for (const text of ['review this PR', 'model context protocol', 'mcp', 'p', '']) {
        expect(() => [matcher.match(text), matcher.rank(text)]).not.toThrow();
      }
    }
  });
});
