import { describe, inject } from 'vitest';
import { scratchDatabasePerFile } from '../../test/db/scratch-per-file';
import { describeMcpConnectionStore } from '../../test/mcp/connection-store-suite';

const baseUrl = inject('pgUrl');

describe.skipIf(!baseUrl)('PostgreSQL', () => {
  describeMcpConnectionStore('pg', scratchDatabasePerFile(baseUrl, 'mcp_connections', 'TRUNCATE mcp_connections'));
});
