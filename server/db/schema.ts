/**
 * The SQLite schema. One table per concept; `npx drizzle-kit generate` turns changes here into a new SQL file in
 * `drizzle/` (commit it with its `meta/` snapshot). To add a table: define it below, export its row types, generate.
 *
 * Enums are TypeScript-only (no CHECK constraints): SQLite cannot alter a CHECK without rebuilding the table, and
 * every write goes through the typed queries in this folder anyway.
 */
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const MESSAGE_ROLES = ['user', 'assistant', 'system'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/**
 * - `streaming`: the answer is being written (a row left in this state at startup means the process died).
 * - `interrupted`: was `streaming` when the process stopped; set at startup.
 * - `aborted`: stopped on purpose (Stop button, closed request).
 * - `error`: the model or a tool failed; `error` holds the message.
 */
export const MESSAGE_STATUSES = ['complete', 'streaming', 'interrupted', 'error', 'aborted'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** `explicit`: the person asked for the skill (`/name`); `model`: the model called `skills_activate`. */
export const ACTIVATION_HOWS = ['explicit', 'model'] as const;
export type ActivationHow = (typeof ACTIVATION_HOWS)[number];

/** Milliseconds since the epoch, read back as `Date`. */
const timestamp = (name: string) => integer(name, { mode: 'timestamp_ms' });

export const chats = sqliteTable(
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
    /** Last activity (a message written); renaming does not move a chat up the list. */
    updatedAt: timestamp('updated_at')
      .notNull()
      .$defaultFn(() => new Date()),
  },
  (t) => [index('chats_updated_at_idx').on(t.updatedAt), index('chats_user_updated_idx').on(t.userId, t.updatedAt)],
);

export const messages = sqliteTable(
  'messages',
  {
    /** The AI SDK `UIMessage.id`. */
    id: text('id').primaryKey(),
    chatId: text('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    /** Position in the chat (1, 2, ...): timestamps can tie or go backwards with the clock; this cannot. */
    seq: integer('seq').notNull(),
    role: text('role', { enum: MESSAGE_ROLES }).notNull(),
    /**
     * JSON of `UIMessage.parts`. Plain text rather than drizzle's `mode: 'json'`, which parses inside the driver
     * mapping: one corrupt row would then throw for the whole listing. `messages.ts` parses it leniently.
     */
    parts: text('parts').notNull(),
    /** JSON of `UIMessage.metadata`, or NULL when the message has none. Parsed leniently like `parts`. */
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
    // Serves "messages of a chat in order" and makes a duplicate position impossible.
    uniqueIndex('messages_chat_seq_idx').on(t.chatId, t.seq),
    index('messages_chat_created_idx').on(t.chatId, t.createdAt),
    // Partial: only rows mid-stream, so the startup recovery does not scan every message.
    index('messages_streaming_idx').on(t.status).where(sql`status = 'streaming'`),
  ],
);

/**
 * Versions of a chat's tail (edit and resend, Regenerate). `messages` is the active path; a group of
 * versions hangs after `parent_id` (the message before the tail, `''` for the chat's start). Each row is one
 * version: `messages` holds the JSON of its stored rows, NULL for the version now active (its rows are in
 * `messages`). `owner_id` is the version row whose stored tail contains `parent_id`: a group nested in a tail that
 * is not shown (NULL while its parent is on the active path). See `server/db/versions.ts`.
 */
export const messageVersions = sqliteTable(
  'message_versions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
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

/** One row per (chat, skill): a summary kept in step with `activation_events` by `recordActivation`. */
export const activations = sqliteTable(
  'activations',
  {
    chatId: text('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    skillName: text('skill_name').notNull(),
    firstHow: text('first_how', { enum: ACTIVATION_HOWS }).notNull(),
    lastHow: text('last_how', { enum: ACTIVATION_HOWS }).notNull(),
    /** Counts per `how` rather than one total, so "asked for by the person" vs "chosen by the model" stays visible. */
    explicitCount: integer('explicit_count').notNull().default(0),
    modelCount: integer('model_count').notNull().default(0),
    firstAt: timestamp('first_at').notNull(),
    lastAt: timestamp('last_at').notNull(),
    /**
     * What the latest activation was approved under: a served skill's listing (its `resourcesHash`). Running its
     * files later in the chat is pinned to it (server/tools/served-pin.ts). NULL for folder skills and older rows.
     */
    version: text('version'),
  },
  (t) => [primaryKey({ columns: [t.chatId, t.skillName] })],
);

/** Append-only log, one row per activation, for the admin page's list across chats. */
export const activationEvents = sqliteTable(
  'activation_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    chatId: text('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    skillName: text('skill_name').notNull(),
    how: text('how', { enum: ACTIVATION_HOWS }).notNull(),
    /** Who activated it (the chat's owner at the time), for per-person usage on /admin; kept if the chat goes. */
    userId: text('user_id'),
    at: timestamp('at').notNull(),
  },
  (t) => [
    index('activation_events_at_idx').on(t.at),
    // Without it, deleting a chat scans the whole log to cascade.
    index('activation_events_chat_idx').on(t.chatId),
  ],
);

/**
 * "Always allow" for a subject (a skill, an MCP tool), tied to the version it was given for (a skill's SKILL.md and
 * scripts, a tool's definition): a grant for another version does not
 * apply, so an edit brings the approval prompt back. Revoked grants stay, with `revoked_at`, as a record.
 */
export const permissionGrants = sqliteTable(
  'permission_grants',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
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

/** `allowed` / `denied`: a person's answer to an approval prompt; `always`: allowed and granted for this content. */
export const PERMISSION_DECISIONS = ['allowed', 'denied', 'always'] as const;
export type PermissionDecision = (typeof PERMISSION_DECISIONS)[number];

/** Every answer to an approval prompt, for the admin page. The chat link goes when the chat is deleted. */
export const permissionDecisions = sqliteTable(
  'permission_decisions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
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

/** Every sandboxed script run: what ran, with what, and how it ended. */
/** What a row of `script_runs` ran: a skill's script, or a shell command. */
export const RUN_KINDS = ['script', 'command'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

export const scriptRuns = sqliteTable(
  'script_runs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    chatId: text('chat_id').references(() => chats.id, { onDelete: 'set null' }),
    /** `script`: a skill's script (skills_runScript); `command`: a shell command (sandbox_exec), in `script`. */
    kind: text('kind', { enum: RUN_KINDS }).notNull().default('script'),
    /** The script's skill; for a command, the skills active in the chat, space-separated (empty when none). */
    skillName: text('skill_name').notNull(),
    script: text('script').notNull(),
    /** Whose chat ran it (null for rows older than per-person data). */
    userId: text('user_id'),
    /** JSON array of strings. */
    args: text('args').notNull(),
    exitCode: integer('exit_code'),
    timedOut: integer('timed_out', { mode: 'boolean' }).notNull().default(false),
    durationMs: integer('duration_ms').notNull(),
    at: timestamp('at').notNull(),
  },
  (t) => [index('script_runs_at_idx').on(t.at)],
);

/** Modes set on /admin, over the config's globs; kept across restarts. */
export const skillModes = sqliteTable('skill_modes', {
  skillName: text('skill_name').primaryKey(),
  mode: text('mode', { enum: ['pinned', 'auto', 'search', 'manual', 'off'] }).notNull(),
  updatedAt: timestamp('updated_at').notNull(),
});

/** What a person switched off for themselves (skills, MCP servers): a personal preference, never an operator setting. */
export const userSkillPrefs = sqliteTable(
  'user_skill_prefs',
  {
    userId: text('user_id').notNull(),
    /** What is switched off: a skill (`skill`) or an MCP server (`mcp-server`), and its key within the kind. */
    subjectKind: text('subject_kind').notNull(),
    subject: text('subject').notNull(),
    disabled: integer('disabled', { mode: 'boolean' }).notNull().default(false),
    updatedAt: timestamp('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.subjectKind, t.subject] })],
);

/** What a failed sign-in is counted against (server/auth/login-throttle.ts). */
export const LOGIN_FAILURE_SCOPES = ['account', 'device', 'address'] as const;
export type LoginFailureScope = (typeof LOGIN_FAILURE_SCOPES)[number];

/**
 * One row per failed sign-in and per thing it counts against (the account's email, the browser's device id, the
 * client's address), so every instance sees the same counts and a restart forgets none. Rows older than the
 * longest window are deleted as new failures come in.
 */
export const loginFailures = sqliteTable(
  'login_failures',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    scope: text('scope', { enum: LOGIN_FAILURE_SCOPES }).notNull(),
    key: text('key').notNull(),
    at: timestamp('at').notNull(),
  },
  (t) => [index('login_failures_key_idx').on(t.scope, t.key, t.at), index('login_failures_at_idx').on(t.at)],
);

/** A browser (device cookie) that signed in to an account: exempt from that account's failure count. */
export const knownDevices = sqliteTable(
  'known_devices',
  {
    account: text('account').notNull(),
    device: text('device').notNull(),
    lastSuccessAt: timestamp('last_success_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.account, t.device] }), index('known_devices_last_idx').on(t.lastSuccessAt)],
);

/** Trigger checks run on a skill's /admin page: the prompts, each one's trigger rates, and the scores (JSON). */
export const triggerChecks = sqliteTable(
  'trigger_checks',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    skillName: text('skill_name').notNull(),
    /** Of the description the model saw, so runs before and after an edit can be compared. */
    descriptionHash: text('description_hash').notNull(),
    model: text('model').notNull(),
    runs: integer('runs').notNull(),
    /** `trigger` (a trigger eval) or `describe` (description proposals, each scored). */
    kind: text('kind').notNull().default('trigger'),
    /** `skillContentHash` of the evaluated skill (SKILL.md and scripts): results are per version. */
    contentHash: text('content_hash'),
    /** JSON `TriggerReport` (server/evals/trigger.ts) or `DescribeReport` (server/evals/describe.ts). */
    report: text('report').notNull(),
    at: timestamp('at').notNull(),
  },
  (t) => [index('trigger_checks_skill_idx').on(t.skillName, t.at)],
);

/**
 * Output eval runs of a skill (server/evals/output.ts): each with the skill's content hash, so a change compares with
 * the last run of another hash. `report` is the JSON `OutputEvalReport`, written as arms finish; `status` `running`
 * until the run ends (`done`, `stopped`, `error`).
 */
export const skillEvalRuns = sqliteTable(
  'skill_eval_runs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    skillName: text('skill_name').notNull(),
    /** `skillContentHash` (server/access/content-hash.ts) of the skill evaluated. */
    contentHash: text('content_hash').notNull(),
    /** Who ran it: the scratch chats are theirs. */
    userId: text('user_id').notNull(),
    model: text('model').notNull(),
    status: text('status', { enum: ['running', 'done', 'stopped', 'error'] }).notNull(),
    report: text('report').notNull(),
    startedAt: timestamp('started_at').notNull(),
    finishedAt: timestamp('finished_at'),
  },
  (t) => [index('skill_eval_runs_skill_idx').on(t.skillName, t.startedAt)],
);

/**
 * The running-turn lease: one row per chat while an answer runs, shared by every instance (docs/TEAM-SERVER.md,
 * "Two instances"). Taken by an upsert that succeeds only when no row exists or its heartbeat is older than the
 * expiry; refreshed by the running instance each tick and deleted when the turn ends. A crashed instance's row
 * expires by itself.
 */
export const chatTurns = sqliteTable('chat_turns', {
  chatId: text('chat_id')
    .primaryKey()
    .references(() => chats.id, { onDelete: 'cascade' }),
  /** The process running the turn (random per start). */
  instanceId: text('instance_id').notNull(),
  /** The answer being written (null until it is started). */
  messageId: text('message_id'),
  startedAt: timestamp('started_at').notNull(),
  heartbeatAt: timestamp('heartbeat_at').notNull(),
  /** Set by a Stop received on another instance; the running instance aborts on its next tick (or NOTIFY). */
  stopRequestedAt: timestamp('stop_requested_at'),
});

export type ChatRow = typeof chats.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;
export type MessageVersionRow = typeof messageVersions.$inferSelect;
export type ActivationRow = typeof activations.$inferSelect;
export type ActivationEventRow = typeof activationEvents.$inferSelect;
export type PermissionGrantRow = typeof permissionGrants.$inferSelect;
export type PermissionDecisionRow = typeof permissionDecisions.$inferSelect;
export type ScriptRunRow = typeof scriptRuns.$inferSelect;

/**
 * Personal access tokens: what an MCP client or an installer sends as `Authorization: Bearer sc_...` to
 * reach the skills its person may use. Only the token's SHA-256 is stored (`token_hash`, looked up by equality: the
 * hash is what is compared, so no timing leak of the token); `hint` is its last characters, for the list.
 */
export const personalTokens = sqliteTable(
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

/**
 * Secrets set on /admin (shared: `owner_id` empty) or on /settings (a person's own), encrypted with AES-256-GCM
 * (server/secrets/crypto.ts); a `${env:NAME}` value is never stored. `key_id` tells a row written under another key.
 */
export const secrets = sqliteTable(
  'secrets',
  {
    name: text('name').notNull(),
    /** `''` for the shared value, else the person's user id. */
    ownerId: text('owner_id').notNull().default(''),
    ciphertext: text('ciphertext').notNull(),
    iv: text('iv').notNull(),
    tag: text('tag').notNull(),
    keyId: text('key_id').notNull(),
    updatedAt: timestamp('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.name, t.ownerId] })],
);

/**
 * A person's OAuth connection to an MCP server (server/mcp/oauth-store.ts): the tokens, the client registration and,
 * while a sign-in is under way, the PKCE verifier and state, as one JSON blob sealed like a secret
 * (server/secrets/crypto.ts, additional data `owner\0mcp:<label>`). `expires_at` and `scopes` are the tokens'
 * (for /admin and /settings, never a token); `connected_at` is null until the first tokens arrive.
 */
export const mcpConnections = sqliteTable(
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

/**
 * Model servers added on /admin (server/model/connections.ts): an OpenAI-compatible endpoint, OpenAI, Anthropic or an
 * Ollama. The key, when there is one, is sealed like a secret's (server/secrets/crypto.ts, slot `model-connection:<id>`);
 * `models` is a JSON array of the model ids offered, NULL for every model the endpoint lists.
 */
export const modelConnections = sqliteTable('model_connections', {
  id: text('id').primaryKey(),
  /** A ConnectionKind: `compatible`, `openai`, `anthropic` or `ollama`. */
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

/** Every connection or plain-HTTP request a run made or tried through its egress proxy (server/egress/). */
export const egressEvents = sqliteTable(
  'egress_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    chatId: text('chat_id').references(() => chats.id, { onDelete: 'set null' }),
    userId: text('user_id'),
    /** The run's id (one tool call, preview or document read). */
    runId: text('run_id').notNull(),
    /** JSON array of the skills whose grant matched, or that the chat had active when refused. */
    skills: text('skills').notNull(),
    host: text('host').notNull(),
    port: integer('port').notNull(),
    allowed: integer('allowed', { mode: 'boolean' }).notNull(),
    /** An EgressRefusalCode when refused. */
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

export type SecretRow = typeof secrets.$inferSelect;
export type McpConnectionRow = typeof mcpConnections.$inferSelect;
export type ModelConnectionRow = typeof modelConnections.$inferSelect;
export type EgressEventRow = typeof egressEvents.$inferSelect;
