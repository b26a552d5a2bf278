/**
 * Discovery never walks into the app's own folders (fixtures/own-folders): a red-team run linked a skill root to the
 * data folder and discovery loaded a SKILL.md a script had written into its chat workspace.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, loadConfig } from '../../config';
import { createSkillRegistry } from '../registry';
import type { SkillRoot } from '../types';
import { discoverSkills } from './discovery';
import { ownFolders, servedSkillsDir } from './own-folders';

const FIXTURE = path.join(import.meta.dirname, '..', 'fixtures', 'own-folders');
const DATA = path.join(FIXTURE, 'data');

/** The app's configuration with its data folder, runtime and install root in the fixture. */
function config(roots: string[], env: Record<string, string> = {}) {
  return loadConfig({
    appDir: path.join(FIXTURE, 'app'),
    home: path.join(FIXTURE, 'home'),
    env: {
      SKILLCHAT_SKILL_ROOTS: roots.join(path.delimiter),
      SKILLCHAT_DB: path.join(DATA, 'skillchat.db'),
      SKILLCHAT_RUNTIME_DIR: path.join(DATA, 'runtime'),
      SKILLCHAT_INSTALL_ROOT: path.join(FIXTURE, 'install-root'),
      SKILLCHAT_WATCH: '0',
      ...env,
    },
  });
}

async function scan(roots: string[], env?: Record<string, string>) {
  const app = config(roots, env);
  const result = await createSkillRegistry(app).current();
  const own = result.diagnostics.filter((d) => d.code === 'own-folder');
  return { result, names: result.skills.map((s) => s.name).sort(), own };
}

describe("the app's own folders", () => {
  it('a root with links to the workspaces, a chat, the data folder, the runtime and staging loads none of them', async () => {
    const { names, own, result } = await scan([path.join(FIXTURE, 'root')]);
    expect(names).toEqual(['real-skill']);
    expect(own.map((d) => [d.severity, d.message.split(';')[0]])).toEqual([
      ['warning', "The link to-chat leads into the app's chat workspaces"],
      ['warning', "The link to-data leads into the app's data folder"],
      ['warning', "The link to-runtime leads into the app's skills runtime"],
      ['warning', "The link to-staging leads into the app's install staging area"],
      ['warning', "The link to-workspaces leads into the app's chat workspaces"],
      ['warning', "The link via-dotdot leads into the app's chat workspaces"],
    ]);
    // The messages say what the folder holds, never where it is.
    for (const d of result.diagnostics) expect(d.message).not.toContain(DATA);
  });

  it('a root that is, or is inside, the workspaces or the data folder is not scanned', async () => {
    for (const root of [path.join(DATA, 'workspaces', 'chat-1', 'files'), DATA, path.join(DATA, 'runtime')]) {
      const { names, own } = await scan([root]);
      expect(names).toEqual([]);
      expect(own).toMatchObject([{ severity: 'warning', message: expect.stringMatching(/^The skill root is/) }]);
    }
  });

  it('a root that contains the data folder skips it', async () => {
    const { names, own } = await scan([FIXTURE]);
    expect(names).toEqual(['real-skill']);
    expect(own).toContainEqual(
      expect.objectContaining({
        severity: 'info',
        message: expect.stringMatching(/^The folder data is the app's data/),
      }),
    );
  });

  it('a root the operator configured inside the data folder is scanned, and still cannot link to the workspaces', async () => {
    const { names, own } = await scan([path.join(DATA, 'skills')]);
    expect(names).toEqual(['kept']);
    expect(own.map((d) => d.message.split(';')[0])).toEqual([
      "The link to-workspaces leads into the app's chat workspaces",
    ]);
  });

  it('the workspace folder is closed wherever it is configured (workspace.dir)', async () => {
    const app = config([]);
    const moved = {
      ...app.execution,
      workspace: { ...app.execution.workspace, dir: path.join(FIXTURE, 'root', 'real-skill') },
    };
    const roots: SkillRoot[] = [{ path: path.join(FIXTURE, 'root'), scope: 'project', kind: 'configured' }];
    const result = await discoverSkills(roots, {
      limits: DEFAULT_LIMITS,
      ownFolders: ownFolders({ ...app, execution: moved }),
    });
    expect(result.skills).toEqual([]);
  });

  it('without them (a bare scan, as before) the links are followed: what the registry now prevents', async () => {
    const roots: SkillRoot[] = [{ path: path.join(FIXTURE, 'root'), scope: 'project', kind: 'configured' }];
    const result = await discoverSkills(roots, { limits: DEFAULT_LIMITS });
    expect(result.skills.map((s) => s.name)).toContain('planted');
  });

  it("the data folder is not the app's or the home folder when the database sits there", () => {
    const app = config([]);
    const inApp = ownFolders({ ...app, databasePath: path.join(app.appDir, 'skillchat.db') });
    expect(inApp.map((f) => f.what)).toEqual([
      'chat workspaces',
      'skills runtime',
      'install staging area',
      'copies of served skills',
    ]);
    expect(ownFolders(app).map((f) => f.what)).toContain('data folder');
  });

  it("the host's copies of served skills (MCP) are closed even to a root configured in the data folder", () => {
    const app = config([]);
    const copies = ownFolders(app).find((f) => f.what === 'copies of served skills');
    expect(copies).toMatchObject({ path: servedSkillsDir(app), rootsInside: false });
  });
});
