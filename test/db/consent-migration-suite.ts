/**
 * The migration to typed consent subjects, on either database: rows written in the old one-string format (a skill's
 * name, `mcp:<label>` for a person's MCP server switch, `mcp:<label>/<tool>` for an MCP tool's grant) are opened
 * with the migrations before it, then migrated; every row is still there, under its kind.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Database, hasGrant, listDecisions, listGrants, listSwitchedOff, setSwitchedOff } from '../../server/db';

/** A copy of `folder` whose journal stops before the migration tagged `tag`. */
export function migrationsBefore(folder: string, tag: string): string {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-before-'));
  fs.cpSync(folder, copy, { recursive: true });
  const journalFile = path.join(copy, 'meta', '_journal.json');
  const journal = JSON.parse(fs.readFileSync(journalFile, 'utf8')) as { entries: Array<{ tag: string }> };
  const at = journal.entries.findIndex((e) => e.tag === tag);
  if (at < 0) throw new Error(`No migration ${tag} in ${folder}`);
  journal.entries = journal.entries.slice(0, at);
  fs.writeFileSync(journalFile, JSON.stringify(journal));
  return copy;
}

export interface MigrationHarness {
  /** The database with the migrations before the one under test. */
  openBefore(): Promise<{ exec(statement: string): Promise<void>; close(): Promise<void> }>;
  /** The same database opened with every migration. */
  openAll(): Promise<{ d: Database; close(): Promise<void> }>;
  /** A timestamp literal for the dialect (`granted_at`, `at`, `updated_at`). */
  now: string;
}

/** Old-format rows, as the app wrote them before subjects were typed. */
const OLD_ROWS = (now: string) => [
  `INSERT INTO permission_grants (skill_name, content_hash, granted_at) VALUES ('pdf', 'h-pdf', ${now})`,
  `INSERT INTO permission_grants (skill_name, content_hash, granted_at) VALUES ('team:pdf', 'h-served', ${now})`,
  `INSERT INTO permission_grants (skill_name, content_hash, granted_at) VALUES ('mcp:github/list_issues', 'h-tool', ${now})`,
  `INSERT INTO permission_grants (skill_name, content_hash, granted_at, revoked_at) VALUES ('csv', 'h-csv', ${now}, ${now})`,
  `INSERT INTO permission_decisions (chat_id, skill_name, decision, content_hash, at) VALUES (NULL, 'pdf', 'allowed', 'h-pdf', ${now})`,
  `INSERT INTO permission_decisions (chat_id, skill_name, decision, content_hash, at) VALUES (NULL, 'mcp:github/list_issues', 'always', 'h-tool', ${now})`,
  `INSERT INTO user_skill_prefs (user_id, skill_name, disabled, updated_at) VALUES ('ann', 'pdf', true, ${now})`,
  `INSERT INTO user_skill_prefs (user_id, skill_name, disabled, updated_at) VALUES ('ann', 'mcp:github', true, ${now})`,
  `INSERT INTO user_skill_prefs (user_id, skill_name, disabled, updated_at) VALUES ('bob', 'team:pdf', true, ${now})`,
  `INSERT INTO user_skill_prefs (user_id, skill_name, disabled, updated_at) VALUES ('bob', 'mcp:files', false, ${now})`,
];

export function describeConsentMigration(dialect: string, harness: () => MigrationHarness) {
  describe(`${dialect}: the migration to typed consent subjects`, () => {
    const closers: Array<() => Promise<void>> = [];
    afterAll(async () => {
      for (const close of closers) await close();
    });

    it('converts every old row, nothing lost: skills, MCP tool grants, server switches', async () => {
      const h = harness();
      const before = await h.openBefore();
      for (const row of OLD_ROWS(h.now)) await before.exec(row);
      await before.close();
      const { d, close } = await h.openAll();
      closers.push(close);

      expect(await hasGrant({ kind: 'skill', key: 'pdf' }, 'h-pdf', d)).toBe(true);
      expect(await hasGrant({ kind: 'skill', key: 'team:pdf' }, 'h-served', d)).toBe(true);
      expect(await hasGrant({ kind: 'mcp-tool', key: 'github/list_issues' }, 'h-tool', d)).toBe(true);
      expect(await hasGrant({ kind: 'skill', key: 'mcp:github/list_issues' }, 'h-tool', d)).toBe(false);
      expect(await hasGrant({ kind: 'skill', key: 'csv' }, 'h-csv', d)).toBe(false); // revoked stays revoked
      expect((await listGrants(d)).map((g) => [g.subjectKind, g.subject]).sort()).toEqual([
        ['mcp-tool', 'github/list_issues'],
        ['skill', 'pdf'],
        ['skill', 'team:pdf'],
      ]);
      expect((await listDecisions(10, d)).map((x) => [x.subjectKind, x.subject, x.decision]).sort()).toEqual([
        ['mcp-tool', 'github/list_issues', 'always'],
        ['skill', 'pdf', 'allowed'],
      ]);

      // `mcp:github` meant both the server github and a served skill of a server labelled mcp: both keep it.
      expect(await listSwitchedOff('ann', 'skill', d)).toEqual(['mcp:github', 'pdf']);
      expect(await listSwitchedOff('ann', 'mcp-server', d)).toEqual(['github']);
      expect(await listSwitchedOff('bob', 'skill', d)).toEqual(['team:pdf']);
      expect(await listSwitchedOff('bob', 'mcp-server', d)).toEqual([]);

      // The new key takes a kind: the server's switch and the skill's are two rows.
      await setSwitchedOff('ann', { kind: 'mcp-server', key: 'github' }, false, d);
      expect(await listSwitchedOff('ann', 'mcp-server', d)).toEqual([]);
      expect(await listSwitchedOff('ann', 'skill', d)).toEqual(['mcp:github', 'pdf']);
    });
  });
}
