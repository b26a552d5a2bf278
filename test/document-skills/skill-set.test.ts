/**
 * The four document skills as skills: valid with no diagnostics, Apache-2.0, every script with --help and a
 * python3 shebang, one LibreOffice helper copied identically into each skill that uses it, and a catalog in which
 * the keyword matcher picks the right one for everyday requests.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readQueriesFile } from '../../server/evals/queries-file';
import { DEFAULT_LIMITS } from '../../server/limits';
import { createMatcher } from '../../server/skills/catalog/match';
import { loadSkill } from '../../server/skills/load/skill-file';
import { SKILLS } from './tools';

const DOCUMENT_SKILLS = ['pdf', 'docx', 'xlsx', 'pptx'];
const OFFICE_HELPER_USERS = ['docx', 'xlsx', 'pptx'];

async function load(name: string) {
  return loadSkill(path.join(SKILLS, name), { root: SKILLS, scope: 'project', relDir: name, limits: DEFAULT_LIMITS });
}

describe('the document skills', () => {
  it.each(DOCUMENT_SKILLS)('%s loads with no diagnostics, Apache-2.0', async (name) => {
    const result = await load(name);
    expect(result.diagnostics).toEqual([]);
    expect(result.skill?.name).toBe(name);
    expect(result.skill?.frontmatter.license).toBe('Apache-2.0');
    expect(fs.readFileSync(path.join(SKILLS, name, 'SKILL.md'), 'utf8').split('\n').length).toBeLessThan(300);
  });

  it('ship scripts that start with #!/usr/bin/env python3 and offer --help', () => {
    for (const name of DOCUMENT_SKILLS) {
      for (const file of fs.readdirSync(path.join(SKILLS, name, 'scripts'))) {
        const text = fs.readFileSync(path.join(SKILLS, name, 'scripts', file), 'utf8');
        expect(text.startsWith('#!/usr/bin/env python3\n'), `${name}/scripts/${file}`).toBe(true);
        expect(text, `${name}/scripts/${file}`).toContain('argparse.ArgumentParser(');
      }
    }
  });

  it.each(DOCUMENT_SKILLS)('%s carries 8-12 trigger queries, about half that should trigger', async (name) => {
    const { skill } = await load(name);
    const file = await readQueriesFile(skill!);
    expect(file.problems).toEqual([]);
    expect(file.queries.length).toBeGreaterThanOrEqual(8);
    expect(file.queries.length).toBeLessThanOrEqual(12);
    const wanted = file.queries.filter((q) => q.shouldTrigger).length;
    expect(Math.abs(wanted - file.queries.length / 2)).toBeLessThanOrEqual(1);
    // The near-misses name another document kind.
    const others = DOCUMENT_SKILLS.filter((n) => n !== name);
    const kinds: Record<string, RegExp> = {
      pdf: /pdf/i,
      docx: /word|docx/i,
      xlsx: /excel|xlsx|workbook/i,
      pptx: /slide|deck|presentation|powerpoint/i,
    };
    const nearMisses = file.queries.filter((q) => !q.shouldTrigger && others.some((o) => kinds[o]!.test(q.text)));
    expect(nearMisses.length).toBeGreaterThanOrEqual(2);
  });

  it('keep one LibreOffice helper: scripts/office.py is the same file in each skill that uses it', () => {
    const [first, ...rest] = OFFICE_HELPER_USERS.map((name) =>
      fs.readFileSync(path.join(SKILLS, name, 'scripts', 'office.py'), 'utf8'),
    );
    for (const copy of rest) expect(copy).toBe(first);
  });

  it('replace pdf-forms, whose form scripts now live in pdf', () => {
    expect(fs.existsSync(path.join(SKILLS, 'pdf-forms'))).toBe(false);
    expect(fs.existsSync(path.join(SKILLS, 'pdf', 'scripts', 'fill_fields.py'))).toBe(true);
  });

  it('are picked first by the keyword matcher for everyday requests, and chit-chat picks none', async () => {
    const skills = [];
    for (const name of fs.readdirSync(SKILLS)) {
      const { skill } = await load(name);
      if (skill) skills.push({ name: skill.name, description: skill.description });
    }
    const matcher = createMatcher(skills);
    const cases: Array<[string, string]> = [
      ['fill in this PDF form for me', 'pdf'],
      ['merge these two pdfs into one', 'pdf'],
      ['extract the tables from report.pdf', 'pdf'],
      ['rotate page 2 of scan.pdf', 'pdf'],
      ['convert my Word document to PDF', 'docx'],
      ['accept all tracked changes in contract.docx', 'docx'],
      ['write a cover letter as a Word file', 'docx'],
      ['make a spreadsheet with formulas for my budget', 'xlsx'],
      ['recalculate the Excel workbook and check for #REF! errors', 'xlsx'],
      ['build a financial model in Excel', 'xlsx'],
      ['make a slide deck about our Q3 results', 'pptx'],
      ['create a PowerPoint presentation for the launch', 'pptx'],
      ['make thumbnails of the slides in deck.pptx', 'pptx'],
      ['turn this csv into json', 'csv-to-json'],
    ];
    for (const [request, expected] of cases) {
      expect(matcher.match(request)[0]?.name, request).toBe(expected);
    }
    expect(matcher.match('hello, how are you today?')).toEqual([]);
  });
});
