import { describe, expect, it } from 'vitest';
import { random, skillName } from '../../../bench/generate';
import { recordsForModes } from '../../access/testing';
import type { SkillMode } from '../../config';
import { compareNames } from '../name-order';
import { HIDDEN_CHARACTER, hiddenTextSkill } from '../testing';
import {
  buildBudgetedCatalog,
  catalogBudget,
  DEFAULT_BUDGET_TOKENS,
  MIN_DESCRIPTION_CHARS,
  shortenDescription,
} from './budget';
import { countTokens, renderCatalog } from './catalog';

interface Block {
  available_skills: Array<{ name: string; description: string }>;
  not_listed?: number;
  note?: string;
}

function parse(catalog: string): Block {
  return JSON.parse(catalog) as Block;
}

const WORDS = ['data', 'report', 'files', 'tables', 'charts', 'summary', 'records', 'export', 'fields', 'notes'];

/** `count` skills with descriptions of `length` characters, named like the bench's (not in alphabetical order). */
function skills(count: number, length = 300, seed = 3): Array<{ name: string; description: string }> {
  const rnd = random(seed);
  return Array.from({ length: count }, (_, i) => {
    const words: string[] = [];
    while (words.join(' ').length < length) words.push(WORDS[Math.floor(rnd() * WORDS.length)]!);
    return {
      name: skillName(rnd, i),
      description: `${words
        .join(' ')
        .slice(0, length - 1)
        .trim()}.`,
    };
  });
}

const modesOf = (entries: Record<string, SkillMode>) => recordsForModes(entries);

describe('catalogBudget', () => {
  it('is 2% of a known context window, else the configured or default number of tokens', () => {
    expect(catalogBudget(128_000, {})).toBe(2560);
    expect(catalogBudget(128_000, { catalog: { budgetPercent: 1 } })).toBe(1280);
    expect(catalogBudget(undefined, {})).toBe(DEFAULT_BUDGET_TOKENS);
    expect(catalogBudget(undefined, { catalog: { budgetTokens: 1500 } })).toBe(1500);
  });
});

describe('shortenDescription', () => {
  it('cuts at a word boundary with an ellipsis, within the limit', () => {
    const text = 'Extract text and tables from PDF files, fill forms, merge and split documents.';
    const short = shortenDescription(text, 40);
    expect(short.length).toBeLessThanOrEqual(40);
    expect(short.endsWith('…')).toBe(true);
    expect(text.startsWith(short.slice(0, -1))).toBe(true);
    expect(text[short.length - 1]).toMatch(/[\s,]/);
    expect(shortenDescription(text, 200)).toBe(text);
  });

  it('never splits a surrogate pair', () => {
    const short = shortenDescription('😀'.repeat(50), 22);
    expect(short).toBe(`${'😀'.repeat(10)}…`);
    expect(short).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});

describe('buildBudgetedCatalog', () => {
  it('appends when_to_use (an extension) to the description in the catalog', () => {
    const result = buildBudgetedCatalog(
      [
        { name: 'fix-issue', description: 'Fixes issues.', frontmatter: { when_to_use: 'When a bug is reported.' } },
        { name: 'plain', description: 'Plain skill.', frontmatter: {} },
      ],
      { budgetTokens: 10_000 },
    );
    expect(parse(result.catalog).available_skills).toEqual([
      { name: 'fix-issue', description: 'Fixes issues. When a bug is reported.' },
      { name: 'plain', description: 'Plain skill.' },
    ]);
  });

  it('under budget: every skill, whole, exactly renderCatalog', () => {
    const few = skills(10);
    const result = buildBudgetedCatalog(few, { budgetTokens: 10_000 });
    expect(result.catalog).toBe(renderCatalog(few));
    expect(result).toMatchObject({ omitted: 0, shortened: 0, tokens: countTokens(result.catalog) });
    expect(result.listed).toEqual(few.map((s) => s.name).sort(compareNames));
  });

  it('500 skills and a small budget: fits, stays valid JSON, and says how many are missing and how to find them', () => {
    const many = skills(500);
    const result = buildBudgetedCatalog(many, { budgetTokens: 2000 });
    const block = parse(result.catalog);
    expect(result.tokens).toBe(countTokens(result.catalog));
    expect(result.tokens).toBeLessThanOrEqual(2000);
    expect(result.listed.length).toBeGreaterThan(10);
    expect(block.available_skills.map((s) => s.name)).toEqual(result.listed);
    expect(block.not_listed).toBe(500 - result.listed.length);
    expect(result.omitted).toBe(block.not_listed);
    expect(block.note).toContain(`${block.not_listed} more skills are not listed`);
    expect(block.note).toContain('skills_search');
    expect([...result.listed].sort(compareNames)).toEqual(result.listed);
  });

  it('shortens descriptions (the longest first) before leaving any skill out', () => {
    const long = skills(20, 900);
    const short = skills(5, 60, 9);
    const all = [...long, ...short];
    const full = countTokens(renderCatalog(all));
    const result = buildBudgetedCatalog(all, { budgetTokens: Math.floor(full * 0.6) });
    expect(result.omitted).toBe(0);
    expect(result.listed).toHaveLength(25);
    expect(result.tokens).toBeLessThanOrEqual(Math.floor(full * 0.6));
    expect(result.shortened).toBe(20);
    const block = parse(result.catalog);
    for (const entry of block.available_skills) {
      const original = all.find((s) => s.name === entry.name)!.description;
      if (original.length <= 60) expect(entry.description).toBe(original);
      else {
        expect(entry.description.endsWith('…')).toBe(true);
        expect(original.startsWith(entry.description.slice(0, -1))).toBe(true);
        expect(entry.description.length).toBeGreaterThanOrEqual(MIN_DESCRIPTION_CHARS / 2);
      }
    }
    // Fair: the trimmed descriptions end up about the same length.
    const lengths = block.available_skills.filter((e) => e.description.endsWith('…')).map((e) => e.description.length);
    expect(Math.max(...lengths) - Math.min(...lengths)).toBeLessThan(40);
  });

  it('leaves skills out only when even short descriptions do not fit, and the listed ones are then short', () => {
    const result = buildBudgetedCatalog(skills(300, 600), { budgetTokens: 1500 });
    expect(result.omitted).toBeGreaterThan(0);
    for (const entry of parse(result.catalog).available_skills) {
      expect(entry.description.length).toBeLessThanOrEqual(MIN_DESCRIPTION_CHARS + 10);
    }
  });

  it('who is left out is not alphabetical when nothing else decides', () => {
    const many = skills(500);
    const result = buildBudgetedCatalog(many, { budgetTokens: 2000 });
    const alphabetical = many
      .map((s) => s.name)
      .sort(compareNames)
      .slice(0, result.listed.length);
    expect(result.listed).not.toEqual(alphabetical);
    const firstLetters = new Set(result.listed.map((n) => n[0]));
    expect(firstLetters.size).toBeGreaterThan(5);
  });

  it('relevance to the conversation keeps a skill listed', () => {
    const many = skills(500);
    many.push({ name: 'zz-invoice-parser', description: 'Parse supplier invoices into line items and totals.' });
    const without = buildBudgetedCatalog(many, { budgetTokens: 1500 });
    expect(without.listed).not.toContain('zz-invoice-parser');
    const withText = buildBudgetedCatalog(many, {
      budgetTokens: 1500,
      relevanceText: 'Can you parse this supplier invoice for me?',
    });
    expect(withText.listed).toContain('zz-invoice-parser');
  });

  it('reuses a build for the same skills, records and ranking inputs, and only for those', () => {
    const many = skills(500);
    const text = 'summary of the records';
    const first = buildBudgetedCatalog(many, { budgetTokens: 1500, relevanceText: text });
    expect(buildBudgetedCatalog(many, { budgetTokens: 1500, relevanceText: text })).toBe(first);
    // Same list, other inputs: built again, and what they change shows.
    const name = first.listed[0]!;
    const offRecords = modesOf({ [name]: 'off' });
    expect(
      buildBudgetedCatalog(many, { budgetTokens: 1500, relevanceText: text, access: offRecords }).listed,
    ).not.toContain(name);
    expect(buildBudgetedCatalog(many, { budgetTokens: 1600, relevanceText: text })).not.toBe(first);
    // A copy of the list with one description edited is another list: nothing stale comes back.
    const edited = many.map((s) => (s.name === name ? { ...s, description: 'Edited.' } : s));
    expect(buildBudgetedCatalog(edited, { budgetTokens: 1500, relevanceText: text }).catalog).not.toBe(first.catalog);
  });

  it('use keeps a skill listed', () => {
    const many = skills(500);
    const without = buildBudgetedCatalog(many, { budgetTokens: 1500 });
    const unused = many.map((s) => s.name).filter((n) => !without.listed.includes(n));
    const favourites = unused.slice(0, 3);
    const result = buildBudgetedCatalog(many, {
      budgetTokens: 1500,
      usage: new Map(favourites.map((n, i) => [n, 10 + i])),
    });
    for (const name of favourites) expect(result.listed).toContain(name);
  });

  it('pinned skills are always listed, even over budget', () => {
    const many = skills(200);
    const pinned = [many[150]!.name, many[199]!.name];
    const modes = modesOf(Object.fromEntries(pinned.map((n) => [n, 'pinned' as const])));
    const tight = buildBudgetedCatalog(many, { budgetTokens: 400, access: modes });
    for (const name of pinned) expect(tight.listed).toContain(name);
    const tiny = buildBudgetedCatalog(many, { budgetTokens: 10, access: modes });
    expect(tiny.listed).toEqual([...pinned].sort(compareNames));
    expect(tiny.tokens).toBeGreaterThan(10);
    expect(tiny.omitted).toBe(198);
  });

  it('search skills are never listed but counted; manual and off are not mentioned', () => {
    const few = skills(6);
    const [a, b, c] = few.map((s) => s.name);
    const result = buildBudgetedCatalog(few, {
      budgetTokens: 10_000,
      access: modesOf({ [a!]: 'search', [b!]: 'manual', [c!]: 'off' }),
    });
    expect(result.listed).toHaveLength(3);
    expect(result.listed).not.toContain(a);
    expect(result.omitted).toBe(1);
    expect(parse(result.catalog)).toMatchObject({ not_listed: 1 });
    expect(parse(result.catalog).note).toContain('1 more skill is not listed');
    expect(result.catalog).not.toContain(b!);
    expect(result.catalog).not.toContain(c!);
  });

  it('is deterministic whatever the input order', () => {
    const many = skills(300);
    const options = {
      budgetTokens: 1800,
      relevanceText: 'summary of the records',
      usage: new Map([[many[7]!.name, 2]]),
    };
    const a = buildBudgetedCatalog(many, options);
    const b = buildBudgetedCatalog([...many].reverse(), options);
    expect(b.catalog).toBe(a.catalog);
  });
});

describe('hidden characters', () => {
  it('never reach the block, whole or shortened, and count for nothing', async () => {
    const skill = await hiddenTextSkill();
    const many = [skill, ...skills(40, 400)];
    const whole = buildBudgetedCatalog([skill], { budgetTokens: DEFAULT_BUDGET_TOKENS });
    expect(whole.catalog).not.toMatch(HIDDEN_CHARACTER);
    expect(parse(whole.catalog).available_skills[0]!.description).toBe('Formats dates.');
    const shortened = buildBudgetedCatalog(many, { budgetTokens: 2500 });
    expect(shortened.shortened).toBeGreaterThan(0);
    expect(shortened.catalog).not.toMatch(HIDDEN_CHARACTER);
    const leftOut = buildBudgetedCatalog(many, { budgetTokens: 600, relevanceText: 'format dates' });
    expect(leftOut.listed).toContain('tag-description');
    expect(leftOut.catalog).not.toMatch(HIDDEN_CHARACTER);
  });
});
