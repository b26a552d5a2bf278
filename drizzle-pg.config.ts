/**
 * drizzle-kit for PostgreSQL: `npm run db:generate` writes `drizzle-pg/` from `server/db/schema-pg.ts` (which
 * re-exports the account tables). Like SQLite's, the app applies these files itself (`openPgDb` in
 * `server/db/pg.ts`); `dbCredentials` is only for `drizzle-kit studio`.
 */
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './server/db/schema-pg.ts',
  out: './drizzle-pg',
  dbCredentials: { url: process.env.DATABASE_URL ?? 'postgres://localhost/skillchat' },
  strict: true,
  verbose: true,
});
