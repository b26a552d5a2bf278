import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAccessResolver } from '../access/resolver';
import { saveSkillFile } from '../authoring/authoring';
import { loadConfig } from '../config';
import { openDb, sqliteDatabase } from '../db';
import { createOfflineModel } from '../offline-model/model';
import { createSkillRegistry } from '../skills/registry';
import { parseProposals, withFileDescription } from './describe';
import { lastDescribe, runStoredDescribe } from './describe-admin';
import { diffWords } from './describe-diff';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'describe-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const appDir = path.resolve(import.meta.dirname, '../..');

function host() {
  const installRoot = path.join(tmp, 'install');
  fs.cpSync(path.join(import.meta.dirname, 'fixtures', 'describe-narrow'), installRoot, { recursive: true });
  const config = loadConfig({
    appDir,
    home: path.join(tmp, 'home'),
    env: {
      SKILLCHAT_SKILL_ROOTS: [installRoot, path.join(appDir, '.skills')].join(path.delimiter),
      SKILLCHAT_INSTALL_ROOT: installRoot,
      SKILLCHAT_WATCH: '0',
    },
  });
  return {
    config,
    registry: createSkillRegistry(config),
    access: createAccessResolver(config),
    model: { model: createOfflineModel(), label: 'Offline model (built-in)' },
    db: sqliteDatabase(openDb(path.join(tmp, 'db.sqlite'))),
    file: path.join(installRoot, 'invoice-totals', 'SKILL.md'),
  };
}

describe('runStoredDescribe', () => {
  it('scores proposals on train and validation queries, stores them, and changes nothing until saved', async () => {
    const h = host();
    const before = fs.readFileSync(h.file, 'utf8');
    const run = await runStoredDescribe(h, 'invoice-totals', [], 1, 3);
    const { report } = run;
    expect(report.split).toEqual({ train: 5, validation: 3 });
    // The narrow description misses the bill and the receipt: 3 of 5 train queries, 1 of 3 held back.
    expect([report.current.train.passed, report.current.validation.passed]).toEqual([3, 1]);
    // The offline model proposes from the queries' own words (server/offline-model/describe.ts).
    const base = 'Adds up the line items of an invoice.';
    expect(report.proposals.map((p) => p.description)).toEqual([
      `${base} Use it also for total, bill, including, check, receipt.`,
      `${base} Use it for requests such as "Add up the line items of this invoice"; "What is the total due on this bill including tax?"; "Check the VAT and the total on my receipt".`,
      `${base} Use it for total, bill, including, check, receipt. Not for write, commit, message, staged, diff, convert.`,
    ]);
    expect(report.proposals.map((p) => [p.train.passed, p.validation.passed])).toEqual([
      [5, 3],
      [5, 3],
      [5, 3],
    ]);
    expect(report.proposals[0]?.diff).toEqual([
      { op: 'same', text: 'Adds up the line items of an invoice. ' },
      { op: 'ins', text: 'Use it also for total, bill, including, check, receipt.' },
    ]);
    expect(fs.readFileSync(h.file, 'utf8')).toBe(before);
    expect((await h.registry.get('invoice-totals'))?.description).toBe('Adds up the line items of an invoice.');
    expect((await lastDescribe(h, 'invoice-totals'))?.report).toEqual(report);

    // Save is the editor's path with the proposal's text: then, and only then, the description changes.
    const chosen = report.proposals[0]!;
    await saveSkillFile(h, 'invoice-totals', chosen.skillFile);
    expect((await h.registry.get('invoice-totals'))?.description).toBe(chosen.description);
    expect(fs.readFileSync(h.file, 'utf8')).toContain('# Invoice totals\n\nAdd the line items');
  });

  it('refuses a query set without both kinds', async () => {
    const h = host();
    fs.rmSync(path.join(path.dirname(h.file), 'evals'), { recursive: true });
    await expect(
      runStoredDescribe(h, 'invoice-totals', [{ text: 'Add up this invoice', shouldTrigger: true }], 1),
    ).rejects.toMatchObject({ code: 'bad_request:describe' });
  });
});

describe('parseProposals', () => {
  it('reads JSON, an array or numbered lines; drops the current one, repeats and over-long ones', () => {
    expect(parseProposals('{"descriptions": ["A", "B", "A", "cur"]}', 'cur', 5)).toEqual({
      descriptions: ['A', 'B'],
      problems: [],
    });
    expect(parseProposals('Here:\n1. First one\n2) Second one\n- Third', 'x', 2).descriptions).toEqual([
      'First one',
      'Second one',
    ]);
    const long = parseProposals(JSON.stringify(['y'.repeat(1025)]), 'x', 3);
    expect(long.descriptions).toEqual([]);
    expect(long.problems).toEqual([
      'A proposal of 1025 characters was left out (at most 1024)',
      'The model proposed no usable description',
    ]);
  });
});

describe('withFileDescription', () => {
  it('replaces the description and keeps the rest of the file', () => {
    const text = '---\nname: a\ndescription: old one\nmetadata:\n  author: me # kept\n---\n\n# Body\n';
    expect(withFileDescription(text, 'New: with a colon')).toBe(
      '---\nname: a\ndescription: "New: with a colon"\nmetadata:\n  author: me # kept\n---\n\n# Body\n',
    );
  });
});

describe('diffWords', () => {
  it('marks the words removed and added', () => {
    expect(diffWords('Adds up an invoice.', 'Adds up a bill or invoice.')).toEqual([
      { op: 'same', text: 'Adds up ' },
      { op: 'del', text: 'an ' },
      { op: 'ins', text: 'a bill or ' },
      { op: 'same', text: 'invoice.' },
    ]);
  });
});
