import { describe, expect, it } from 'vitest';
import { recordsForModes } from '../../access/testing';
import { HIDDEN_CHARACTER, hiddenTextSkill } from '../testing';
import { createMatcher } from './match';
import { MAX_SEARCH_LIMIT, searchSkills } from './search';

const skills = [
  { name: 'pdf', description: 'Extract text and tables from PDF files, fill PDF forms.' },
  { name: 'pdf-legacy', description: 'The old PDF extractor.' },
  { name: 'pdf-manual', description: 'PDF redaction, only when asked for by name.' },
  { name: 'pdf-search', description: 'Merge and split PDF documents.' },
  { name: 'csv-to-json', description: 'Convert CSV files to JSON.' },
];
const matcher = createMatcher(skills);
const modes = recordsForModes({ 'pdf-legacy': 'off', 'pdf-manual': 'manual', 'pdf-search': 'search' });

describe('searchSkills', () => {
  it('ranks by the matcher and returns names with descriptions', () => {
    const hits = searchSkills(matcher, skills, 'convert a csv file', 5);
    expect(hits[0]).toMatchObject({ name: 'csv-to-json', description: 'Convert CSV files to JSON.' });
    expect(hits[0]!.score).toBeGreaterThan(0);
  });

  it('finds search-mode skills, never manual or off ones', () => {
    const names = searchSkills(matcher, skills, 'pdf', 10, modes).map((h) => h.name);
    expect(names).toContain('pdf');
    expect(names).toContain('pdf-search');
    expect(names).not.toContain('pdf-legacy');
    expect(names).not.toContain('pdf-manual');
  });

  it('honours the limit after filtering, clamped to a sane range', () => {
    expect(searchSkills(matcher, skills, 'pdf', 1, modes)).toHaveLength(1);
    expect(searchSkills(matcher, skills, 'pdf', 0, modes).length).toBeGreaterThan(0);
    const many = Array.from({ length: 80 }, (_, i) => ({ name: `report-${i}`, description: 'Build a report.' }));
    expect(searchSkills(createMatcher(many), many, 'report', 1000)).toHaveLength(MAX_SEARCH_LIMIT);
  });

  it('a blank query finds nothing; skills the list does not hold are skipped', () => {
    expect(searchSkills(matcher, skills, '   ', 5)).toEqual([]);
    expect(searchSkills(matcher, skills.slice(1), 'extract text tables', 5).map((h) => h.name)).not.toContain('pdf');
  });
});

describe('search hits are tool results', () => {
  it('carry descriptions without hidden characters', async () => {
    const skill = await hiddenTextSkill();
    const hits = searchSkills(createMatcher([skill]), [skill], 'format dates', 5);
    expect(hits.map((h) => h.description)).toEqual(['Formats dates.']);
    expect(JSON.stringify(hits)).not.toMatch(HIDDEN_CHARACTER);
  });
});
