import { describe, inject } from 'vitest';
import { describeEgressRecord } from '../../test/db/egress-suite';
import { scratchDatabasePerFile } from '../../test/db/scratch-per-file';

const baseUrl = inject('pgUrl');

describe.skipIf(!baseUrl)('PostgreSQL', () => {
  describeEgressRecord(
    'pg',
    scratchDatabasePerFile(baseUrl, 'egress', 'TRUNCATE chats, egress_events RESTART IDENTITY CASCADE'),
  );
});
