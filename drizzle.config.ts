/**
 * drizzle-kit: `npm run db:generate` writes a migration into `drizzle/` from `server/db/schema.ts` and the account
 * tables (`server/db/schema-auth.ts`); `drizzle-pg.config.ts` does the same for PostgreSQL into `drizzle-pg/`.
 * The app applies those files itself when it opens the database (`server/db/client.ts`), so `drizzle-kit migrate`
 * is never needed; `dbCredentials` is only for `drizzle-kit studio`.
 */
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: ['./server/db/schema.ts', './server/db/schema-auth.ts'],
  out: './drizzle',
  dbCredentials: { url: process.env.SKILLCHAT_DB ?? 'data/skillchat.db' },
  strict: true,
  verbose: true,
});
