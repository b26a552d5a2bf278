/**
 * Accounts, in the tables better-auth expects (`server/auth/auth.ts` hands these to its drizzle adapter under the
 * model names `user`, `session`, `account`, `verification`). Property names are better-auth's field names; the
 * SQL names are ours. `schema-auth-pg.ts` is the same on PostgreSQL: change both together, then generate both
 * dialects' migrations (`npm run db:generate`).
 *
 * Roles and bans are the `admin` plugin's fields on `users`. Passwords are never here: better-auth keeps the
 * credential's hash in `auth_accounts.password` (provider `credential`).
 */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

const timestamp = (name: string) => integer(name, { mode: 'timestamp_ms' });

export const AUTH_ROLES = ['admin', 'member'] as const;
export type AuthRole = (typeof AUTH_ROLES)[number];

export const users = sqliteTable('users', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  email: text('email').notNull().unique(),
  emailVerified: integer('email_verified', { mode: 'boolean' }).notNull().default(false),
  image: text('image'),
  /** `admin` or `member` (better-auth's admin plugin stores the role as text). */
  role: text('role'),
  /** Disabled by an admin: sign-in is refused and sessions are revoked. */
  banned: integer('banned', { mode: 'boolean' }).default(false),
  banReason: text('ban_reason'),
  banExpires: timestamp('ban_expires'),
  createdAt: timestamp('created_at').notNull(),
  updatedAt: timestamp('updated_at').notNull(),
});

export const sessions = sqliteTable(
  'auth_sessions',
  {
    id: text('id').primaryKey(),
    expiresAt: timestamp('expires_at').notNull(),
    /** The cookie's session token: unique, looked up on every request. */
    token: text('token').notNull().unique(),
    createdAt: timestamp('created_at').notNull(),
    updatedAt: timestamp('updated_at').notNull(),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    impersonatedBy: text('impersonated_by'),
  },
  (t) => [index('auth_sessions_user_idx').on(t.userId)],
);

export const accounts = sqliteTable(
  'auth_accounts',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    providerId: text('provider_id').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    accessToken: text('access_token'),
    refreshToken: text('refresh_token'),
    idToken: text('id_token'),
    accessTokenExpiresAt: timestamp('access_token_expires_at'),
    refreshTokenExpiresAt: timestamp('refresh_token_expires_at'),
    scope: text('scope'),
    /** The library's password hash (scrypt), for provider `credential`. */
    password: text('password'),
    createdAt: timestamp('created_at').notNull(),
    updatedAt: timestamp('updated_at').notNull(),
  },
  (t) => [index('auth_accounts_user_idx').on(t.userId)],
);

export const verifications = sqliteTable(
  'auth_verifications',
  {
    id: text('id').primaryKey(),
    identifier: text('identifier').notNull(),
    value: text('value').notNull(),
    expiresAt: timestamp('expires_at').notNull(),
    createdAt: timestamp('created_at').notNull(),
    updatedAt: timestamp('updated_at').notNull(),
  },
  (t) => [index('auth_verifications_identifier_idx').on(t.identifier)],
);

export type UserRow = typeof users.$inferSelect;
