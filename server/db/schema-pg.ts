/**
 * `schema.ts` on PostgreSQL (`DATABASE_URL=postgres://...`), plus the account tables (`schema-auth-pg.ts`).
 * Same tables, columns, indexes and TypeScript property names, so one set of named queries can serve both;
 * SQLite stays the embedded default. Differences are the dialect's own: `timestamptz` for the millisecond
 * integers, `boolean` for 0/1, identity columns for AUTOINCREMENT. Change `schema.ts` and this file together, then
 * `npm run db:generate` writes both `drizzle/` and `drizzle-pg/`.
 */
import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  pgTable,
  timestamp as pgTimestamp,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import {
  ACTIVATION_HOWS,
  LOGIN_FAILURE_SCOPES,
  MESSAGE_ROLES,
  MESSAGE_STATUSES,
  PERMISSION_DECISIONS,
  RUN_KINDS,
} from './schema';

export * from './schema-auth-pg';

/** Read back as `Date`, like SQLite's `timestamp_ms` integers. */
const timestamp = (name: string) => pgTimestamp(name, { withTimezone: true, mode: 'date' });

export const chats = pgTable(
  'chats',
  {
    id: text('id').primaryKey(),
    /**
     * The person the chat belongs to (an auth user id, or LOCAL_USER_ID for the built-in loopback person). No
     * foreign key to the account table: the loopback person has no account row.
     */
    userId: text('user_id').notNull().default('local'),
    title: text('title').notNull(),
    /** The model picked for this chat (`provider:model`, server/model/registry.ts); NULL: the app's default. */
    model: text('model'),
    createdAt: timestamp('created_at')
      .notNull()
      .$defaultFn(() => new Date()),
    updatedAt: timestamp('updated_at')
      .notNull()
      .$defaultFn(() => new Date()),
  },
  (t) => [index('chats_updated_at_idx').on(t.updatedAt), index('chats_user_updated_idx').on(t.userId, t.updatedAt)],
);

export const messages = pgTable(
  'messages',
  {
    id: text('id').primaryKey(),
    chatId: text('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    role: text('role', { enum: MESSAGE_ROLES }).notNull(),
    /** Text, not jsonb: parsed leniently by `messages.ts`, as on SQLite. */
    parts: text('parts').notNull(),
    metadata: text('metadata'),
    status: text('status', { enum: MESSAGE_STATUSES }).notNull(),
    error: text('error'),
    createdAt: timestamp('created_at')
      .notNull()
      .$defaultFn(() => new Date()),
    updatedAt: timestamp('updated_at')
      .notNull()
      .$defaultFn(() => new Date()),
  },
  (t) => [
    uniqueIndex('messages_chat_seq_idx').on(t.chatId, t.seq),
    index('messages_chat_created_idx').on(t.chatId, t.createdAt),
    index('messages_streaming_idx').on(t.status).where(sql`status = 'streaming'`),
  ],
);

/** See `schema.ts`. */
export const messageVersions = pgTable(
  'message_versions',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    chatId: text('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    parentId: text('parent_id').notNull(),
    versionNo: integer('version_no').notNull(),
    messages: text('messages'),
    ownerId: integer('owner_id'),
    createdAt: timestamp('created_at').notNull(),
  },
  (t) => [index('message_versions_chat_idx').on(t.chatId, t.parentId)],
);

export const activations = pgTable(
  'activations',
  {
    chatId: text('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    skillName: text('skill_name').notNull(),
    firstHow: text('first_how', { enum: ACTIVATION_HOWS }).notNull(),
    lastHow: text('last_how', { enum: ACTIVATION_HOWS }).notNull(),
    explicitCount: integer('explicit_count').notNull().default(0),
    modelCount: integer('model_count').notNull().default(0),
    firstAt: timestamp('first_at').notNull(),
    lastAt: timestamp('last_at').notNull(),
    version: text('version'),
  },
  (t) => [primaryKey({ columns: [t.chatId, t.skillName] })],
);

export const activationEvents = pgTable(
  'activation_events',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    chatId: text('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    skillName: text('skill_name').notNull(),
    how: text('how', { enum: ACTIVATION_HOWS }).notNull(),
    /** Who activated it (the chat's owner at the time), for per-person usage on /admin; kept if the chat goes. */
    userId: text('user_id'),
    at: timestamp('at').notNull(),
  },
  (t) => [index('activation_events_at_idx').on(t.at), index('activation_events_chat_idx').on(t.chatId)],
);

export const permissionGrants = pgTable(
  'permission_grants',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    /** What is granted: its kind and its key within the kind (server/consent/subjects.ts). */
    subjectKind: text('subject_kind').notNull(),
    subject: text('subject').notNull(),
    /** The version the grant binds to: a skill's content hash, an MCP tool's definition hash. */
    contentHash: text('content_hash').notNull(),
    /** Whose grant it is, for a kind a person grants for themselves (a standing shell grant); null: everyone's. */
    userId: text('user_id'),
    grantedAt: timestamp('granted_at').notNull(),
    revokedAt: timestamp('revoked_at'),
  },
  (t) => [index('permission_grants_subject_idx').on(t.subjectKind, t.subject, t.contentHash)],
);

export const permissionDecisions = pgTable(
  'permission_decisions',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    chatId: text('chat_id').references(() => chats.id, { onDelete: 'set null' }),
    /** What was answered about: its kind and its key within the kind (server/consent/subjects.ts). */
    subjectKind: text('subject_kind').notNull(),
    subject: text('subject').notNull(),
    decision: text('decision', { enum: PERMISSION_DECISIONS }).notNull(),
    /** Who answered (null for rows older than per-person data). */
    userId: text('user_id'),
    contentHash: text('content_hash').notNull(),
    at: timestamp('at').notNull(),
  },
  (t) => [index('permission_decisions_at_idx').on(t.at)],
);

export const scriptRuns = pgTable(
  'script_runs',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    chatId: text('chat_id').references(() => chats.id, { onDelete: 'set null' }),
    /** `script`: a skill's script (skills_runScript); `command`: a shell command (sandbox_exec), in `script`. */
    kind: text('kind', { enum: RUN_KINDS }).notNull().default('script'),
    /** The script's skill; for a command, the skills active in the chat, space-separated (empty when none). */
    skillName: text('skill_name').notNull(),
    script: text('script').notNull(),
    /** Whose chat ran it (null for rows older than per-person data). */
    userId: text('user_id'),
    args: text('args').notNull(),
    exitCode: integer('exit_code'),
    timedOut: boolean('timed_out').notNull().default(false),
    durationMs: integer('duration_ms').notNull(),
    at: timestamp('at').notNull(),
  },
  (t) => [index('script_runs_at_idx').on(t.at)],
);

export const loginFailures = pgTable(
  'login_failures',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    scope: text('scope', { enum: LOGIN_FAILURE_SCOPES }).notNull(),
    key: text('key').notNull(),
    at: timestamp('at').notNull(),
  },
  (t) => [index('login_failures_key_idx').on(t.scope, t.key, t.at), index('login_failures_at_idx').on(t.at)],
);

export const knownDevices = pgTable(
  'known_devices',
  {
    account: text('account').notNull(),
    device: text('device').notNull(),
    lastSuccessAt: timestamp('last_success_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.account, t.device] }), index('known_devices_last_idx').on(t.lastSuccessAt)],
);

export const triggerChecks = pgTable(
  'trigger_checks',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    skillName: text('skill_name').notNull(),
    descriptionHash: text('description_hash').notNull(),
    model: text('model').notNull(),
    runs: integer('runs').notNull(),
    kind: text('kind').notNull().default('trigger'),
    contentHash: text('content_hash'),
    report: text('report').notNull(),
    at: timestamp('at').notNull(),
  },
  (t) => [index('trigger_checks_skill_idx').on(t.skillName, t.at)],
);

/** See `schema.ts`: output eval runs per skill content hash. */
export const skillEvalRuns = pgTable(
  'skill_eval_runs',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    skillName: text('skill_name').notNull(),
    contentHash: text('content_hash').notNull(),
    userId: text('user_id').notNull(),
    model: text('model').notNull(),
    status: text('status', { enum: ['running', 'done', 'stopped', 'error'] }).notNull(),
    report: text('report').notNull(),
    startedAt: timestamp('started_at').notNull(),
    finishedAt: timestamp('finished_at'),
  },
  (t) => [index('skill_eval_runs_skill_idx').on(t.skillName, t.startedAt)],
);

export const skillModes = pgTable('skill_modes', {
  skillName: text('skill_name').primaryKey(),
  mode: text('mode', { enum: ['pinned', 'auto', 'search', 'manual', 'off'] }).notNull(),
  updatedAt: timestamp('updated_at').notNull(),
});

/** See `schema.ts`: the running-turn lease shared by instances. */
export const chatTurns = pgTable('chat_turns', {
  chatId: text('chat_id')
    .primaryKey()
    .references(() => chats.id, { onDelete: 'cascade' }),
  instanceId: text('instance_id').notNull(),
  messageId: text('message_id'),
  startedAt: timestamp('started_at').notNull(),
  heartbeatAt: timestamp('heartbeat_at').notNull(),
  stopRequestedAt: timestamp('stop_requested_at'),
});

/** What a person switched off for themselves (skills, MCP servers): a personal preference, never an operator setting. */
export const userSkillPrefs = pgTable(
  'user_skill_prefs',
  {
    userId: text('user_id').notNull(),
    /** What is switched off: a skill (`skill`) or an MCP server (`mcp-server`), and its key within the kind. */
    subjectKind: text('subject_kind').notNull(),
    subject: text('subject').notNull(),
    disabled: boolean('disabled').notNull().default(false),
    updatedAt: timestamp('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.subjectKind, t.subject] })],
);

/**
 * Personal access tokens: what an MCP client or an installer sends as `Authorization: Bearer sc_...` to
 * reach the skills its person may use. Only the token's SHA-256 is stored (`token_hash`, looked up by equality: the
 * hash is what is compared, so no timing leak of the token); `hint` is its last characters, for the list.
 */
export const personalTokens = pgTable(
  'personal_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    hint: text('hint').notNull(),
    createdAt: timestamp('created_at').notNull(),
    lastUsedAt: timestamp('last_used_at'),
    revokedAt: timestamp('revoked_at'),
  },
  (t) => [index('personal_tokens_user_idx').on(t.userId, t.createdAt)],
);

export const secrets = pgTable(
  'secrets',
  {
    name: text('name').notNull(),
    ownerId: text('owner_id').notNull().default(''),
    ciphertext: text('ciphertext').notNull(),
    iv: text('iv').notNull(),
    tag: text('tag').notNull(),
    keyId: text('key_id').notNull(),
    updatedAt: timestamp('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.name, t.ownerId] })],
);

export const mcpConnections = pgTable(
  'mcp_connections',
  {
    userId: text('user_id').notNull(),
    server: text('server').notNull(),
    ciphertext: text('ciphertext').notNull(),
    iv: text('iv').notNull(),
    tag: text('tag').notNull(),
    keyId: text('key_id').notNull(),
    scopes: text('scopes'),
    expiresAt: timestamp('expires_at'),
    connectedAt: timestamp('connected_at'),
    updatedAt: timestamp('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.server] }), index('mcp_connections_server_idx').on(t.server)],
);

export const modelConnections = pgTable('model_connections', {
  id: text('id').primaryKey(),
  kind: text('kind').notNull(),
  name: text('name').notNull(),
  baseUrl: text('base_url').notNull(),
  models: text('models'),
  ciphertext: text('ciphertext'),
  iv: text('iv'),
  tag: text('tag'),
  keyId: text('key_id'),
  createdAt: timestamp('created_at').notNull(),
  updatedAt: timestamp('updated_at').notNull(),
});

export const egressEvents = pgTable(
  'egress_events',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    chatId: text('chat_id').references(() => chats.id, { onDelete: 'set null' }),
    userId: text('user_id'),
    runId: text('run_id').notNull(),
    skills: text('skills').notNull(),
    host: text('host').notNull(),
    port: integer('port').notNull(),
    allowed: boolean('allowed').notNull(),
    code: text('code'),
    reason: text('reason'),
    requests: integer('requests').notNull().default(1),
    bytesIn: integer('bytes_in').notNull().default(0),
    bytesOut: integer('bytes_out').notNull().default(0),
    durationMs: integer('duration_ms').notNull().default(0),
    at: timestamp('at').notNull(),
  },
  (t) => [
    index('egress_events_at_idx').on(t.at),
    index('egress_events_user_idx').on(t.userId, t.at),
    index('egress_events_host_idx').on(t.host, t.at),
    index('egress_events_run_idx').on(t.runId),
  ],
);
