/** /admin shows the catalog a chat's model receives: a skill denied by permission is not in it. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createAccessResolver } from '../access/resolver';
import { loadConfig } from '../config';
import { openDb, sqliteDatabase } from '../db';
import { createModelRegistry } from '../model/registry';
import { createSkillRegistry } from '../skills/registry';
import { loadAdminOverview } from './overview';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-admin-catalog-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function writeSkill(name: string) {
  fs.mkdirSync(path.join(tmp, 'skills', name), { recursive: true });
  fs.writeFileSync(
    path.join(tmp, 'skills', name, 'SKILL.md'),
    `---\nname: ${name}\ndescription: Does ${name} things.\n---\nBody\n`,
  );
}

it('leaves denied skills out of the catalog preview, as a turn does', async () => {
  writeSkill('kept-skill');
  writeSkill('denied-skill');
  const base = loadConfig({
    appDir: tmp,
    env: { SKILLCHAT_DB: path.join(tmp, 'db.sqlite'), SKILLCHAT_SKILL_ROOTS: path.join(tmp, 'skills') },
    home: path.join(tmp, 'home'),
  });
  const config = { ...base, permissions: { rules: { 'denied-*': 'deny' as const } } };
  const overview = await loadAdminOverview({
    config,
    registry: createSkillRegistry(config),
    access: createAccessResolver(config),
    db: sqliteDatabase(openDb(config.databasePath)),
    models: createModelRegistry({ env: {}, ollamaOrigin: null }),
  });
  expect(overview.catalog.text).toContain('kept-skill');
  expect(overview.catalog.text).not.toContain('denied-skill');
});
