/** The database API: import from `@/server/db`. Nothing here opens the database until a query runs. */
export * from './activations';
export * from './chats';
export {
  closeDatabase,
  closeDb,
  type Database,
  type DatabaseConfig,
  type Db,
  getOpenReport,
  type OpenDbOptions,
  type OpenReport,
  openDatabase,
  openDb,
  pgDatabase,
  sqliteDatabase,
  withTransaction,
} from './client';
export * from './egress';
export * from './errors';
export * from './eval-runs';
export * from './mcp-connections';
export * from './messages';
export * from './model-connections';
export * from './permissions';
export * from './personal-tokens';
export * from './recovery';
export {
  ACTIVATION_HOWS,
  type ActivationHow,
  MESSAGE_ROLES,
  MESSAGE_STATUSES,
  type MessageRole,
  type MessageStatus,
  PERMISSION_DECISIONS,
  type PermissionDecision,
} from './schema';
export * from './search';
export * from './secrets';
export * from './skill-modes';
export * from './skill-prefs';
export * from './trigger-checks';
export * from './turn-leases';
export * from './versions';
