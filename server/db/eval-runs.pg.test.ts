import { describe, inject } from 'vitest';
import { describeEvalRuns } from '../../test/db/eval-runs-suite';
import { scratchDatabasePerFile } from '../../test/db/scratch-per-file';

const baseUrl = inject('pgUrl');

describe.skipIf(!baseUrl)('PostgreSQL', () => {
  describeEvalRuns('pg', scratchDatabasePerFile(baseUrl, 'evalruns', 'TRUNCATE skill_eval_runs RESTART IDENTITY'));
});
