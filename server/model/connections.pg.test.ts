import { describe, inject } from 'vitest';
import { scratchDatabasePerFile } from '../../test/db/scratch-per-file';
import { describeConnectionStore } from '../../test/model/connection-store-suite';

const baseUrl = inject('pgUrl');

describe.skipIf(!baseUrl)('PostgreSQL', () => {
  describeConnectionStore('pg', scratchDatabasePerFile(baseUrl, 'model_connections', 'TRUNCATE model_connections'));
});
