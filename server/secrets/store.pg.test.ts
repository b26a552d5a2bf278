import { describe, inject } from 'vitest';
import { scratchDatabasePerFile } from '../../test/db/scratch-per-file';
import { describeSecretStore } from '../../test/secrets/store-suite';

const baseUrl = inject('pgUrl');

describe.skipIf(!baseUrl)('PostgreSQL', () => {
  describeSecretStore(
    'pg',
    scratchDatabasePerFile(baseUrl, 'secrets', 'TRUNCATE secrets, chats RESTART IDENTITY CASCADE'),
  );
});
