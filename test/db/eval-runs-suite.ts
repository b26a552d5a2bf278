/** The output eval runs' queries on both databases: run by server/db/eval-runs.test.ts and eval-runs.pg.test.ts. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/client';
import {
  addEvalRun,
  endAbandonedEvalRuns,
  lastEvalRunOtherVersion,
  listEvalRuns,
  updateEvalRun,
} from '../../server/db/eval-runs';
import type { OpenedDatabase } from './db-suite';

export function describeEvalRuns(dialect: 'sqlite' | 'pg', open: () => Promise<OpenedDatabase>): void {
  describe(`skill eval runs on ${dialect}`, () => {
    let opened: OpenedDatabase;
    let d: Database;
    beforeEach(async () => {
      opened = await open();
      d = opened.d;
    });
    afterEach(() => opened.close());

    const run = (hash: string, at: number) =>
      addEvalRun(d, {
        skillName: 'docx',
        contentHash: hash,
        userId: 'ann',
        model: 'offline',
        report: '{}',
        startedAt: new Date(at),
      });

    it('stores a run, grows its report and ends it', async () => {
      const id = await run('h1', 1000);
      expect((await listEvalRuns(d, 'docx'))[0]).toMatchObject({ id, status: 'running', finishedAt: null });
      await updateEvalRun(d, id, { report: '{"arms":[]}' });
      expect((await listEvalRuns(d, 'docx'))[0]).toMatchObject({ status: 'running', report: '{"arms":[]}' });
      await updateEvalRun(d, id, { report: '{"arms":[1]}', status: 'done' });
      const [ended] = await listEvalRuns(d, 'docx');
      expect(ended).toMatchObject({ status: 'done', report: '{"arms":[1]}', contentHash: 'h1', userId: 'ann' });
      expect(ended!.finishedAt).toBeInstanceOf(Date);
      expect(await listEvalRuns(d, 'xlsx')).toEqual([]);
    });

    it('finds the newest finished run of another version', async () => {
      const old = await run('h1', 1000);
      await updateEvalRun(d, old, { report: '{}', status: 'done' });
      const older = await run('h0', 500);
      await updateEvalRun(d, older, { report: '{}', status: 'done' });
      await run('h2', 3000); // still running: not a comparison
      const same = await run('h3', 4000);
      await updateEvalRun(d, same, { report: '{}', status: 'done' });
      expect((await lastEvalRunOtherVersion(d, 'docx', 'h3'))?.id).toBe(old);
      expect(await lastEvalRunOtherVersion(d, 'xlsx', 'h3')).toBeNull();
      expect((await listEvalRuns(d, 'docx')).map((r) => r.contentHash)).toEqual(['h3', 'h2', 'h1', 'h0']);
    });

    it("marks a person's runs left running as stopped, not another's", async () => {
      await run('h1', 1000);
      await endAbandonedEvalRuns(d, 'docx', 'bob');
      expect((await listEvalRuns(d, 'docx'))[0]!.status).toBe('running');
      await endAbandonedEvalRuns(d, 'docx', 'ann');
      expect((await listEvalRuns(d, 'docx'))[0]!.status).toBe('stopped');
    });
  });
}
