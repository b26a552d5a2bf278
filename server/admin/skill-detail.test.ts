/** The skill page names hidden text in a skill's text resources, not only in SKILL.md. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { createSkillRegistry } from '../skills/registry';
import { loadAdminSkill } from './skill-detail';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-admin-detail-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

it('warns about hidden characters in a text resource, with line and column', async () => {
  const dir = path.join(tmp, 'skills', 'tagged');
  fs.mkdirSync(path.join(dir, 'references'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: tagged\ndescription: Looks fine.\n---\nRead the guide.\n');
  fs.writeFileSync(path.join(dir, 'references', 'guide.md'), `# Guide\nStep one.\u200B\n`);
  const config = loadConfig({
    appDir: tmp,
    env: { SKILLCHAT_DB: path.join(tmp, 'db.sqlite'), SKILLCHAT_SKILL_ROOTS: path.join(tmp, 'skills') },
    home: path.join(tmp, 'home'),
  });
  const detail = await loadAdminSkill({ config, registry: createSkillRegistry(config) }, 'tagged');
  expect(detail?.diagnostics).toEqual([
    {
      severity: 'warning',
      code: 'hidden-text',
      message: 'references/guide.md contains 1 hidden character: zero-width character U+200B at line 2, column 10',
      hint: expect.stringContaining('remove the characters'),
    },
  ]);
});

it('shows a description written as instructions to the model as a warning (fixtures/instruction-like)', async () => {
  const config = loadConfig({
    appDir: tmp,
    env: {
      SKILLCHAT_DB: path.join(tmp, 'db.sqlite'),
      SKILLCHAT_SKILL_ROOTS: path.join(import.meta.dirname, '..', 'skills', 'fixtures', 'instruction-like'),
    },
    home: path.join(tmp, 'home'),
  });
  const registry = createSkillRegistry(config);
  const detail = await loadAdminSkill({ config, registry }, 'system-override');
  expect(detail?.diagnostics.map((d) => [d.severity, d.code])).toEqual([['warning', 'instruction-like-description']]);
  // /admin's problem list reads the scan's diagnostics.
  const scan = await registry.current();
  expect(scan.diagnostics.filter((d) => d.code === 'instruction-like-description')).toHaveLength(6);
});

it('shows a malformed metadata.network or metadata.secrets entry as a warning; the skill loads', async () => {
  const dir = path.join(tmp, 'declares', 'github-issues');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'SKILL.md'),
    '---\nname: github-issues\ndescription: Files issues.\nmetadata:\n  network: "api.github.com https://x.test"\n  secrets: "GITHUB_TOKEN lower-case"\n---\nBody.\n',
  );
  const config = loadConfig({
    appDir: tmp,
    env: { SKILLCHAT_DB: path.join(tmp, 'db.sqlite'), SKILLCHAT_SKILL_ROOTS: path.join(tmp, 'declares') },
    home: path.join(tmp, 'home'),
  });
  const detail = await loadAdminSkill({ config, registry: createSkillRegistry(config) }, 'github-issues');
  expect(detail?.diagnostics.map((d) => [d.severity, d.code, d.message])).toEqual([
    [
      'warning',
      'network-declaration',
      'metadata.network: "https://x.test" is not a host pattern: write a host name, optionally with :port (api.example.com:443). It was ignored.',
    ],
    [
      'warning',
      'secrets-declaration',
      'metadata.secrets: "lower-case" is not a secret name: use A-Z, 0-9 and _, starting with a letter or _ (GITHUB_TOKEN). It was ignored.',
    ],
  ]);
});
