/**
 * A person's switch for an MCP server and their switch for a skill are different things, even where the names meet:
 * the served skill `github` of a server labelled `mcp` is called `mcp:github`, as the switch of the server `github`
 * once was. Switching one never switches the other.
 */
import { describe, expect, it } from 'vitest';
import { personalAccess, setSkillPref } from '../access/personal';
import { openDb, sqliteDatabase } from '../db';
import { resolveMcpConfig } from './config';
import type { McpServerState } from './manager';
import { listMcpPrefs, setMcpPref } from './personal';

const labels = ['github', 'mcp'];
const config = {
  mcp: resolveMcpConfig({
    mcpServers: { github: { url: 'http://127.0.0.1:1/' }, mcp: { url: 'http://127.0.0.1:2/' } },
  }),
};
const mcp = {
  list: () =>
    labels.map(
      (label): McpServerState => ({
        label,
        transport: 'http',
        target: '',
        status: 'connected',
        since: 0,
        failures: 0,
        tools: [],
        skipped: [],
        stats: {},
      }),
    ),
};
const served = { name: 'mcp:github', description: 'The skill github of the server labelled mcp.' };

describe("a person's switches: the MCP server github and the served skill mcp:github", () => {
  it('switching the server off leaves the skill on', async () => {
    const db = sqliteDatabase(openDb(':memory:'));
    await setMcpPref({ db, config }, 'ann', 'github', true);
    expect((await listMcpPrefs({ db, mcp }, 'ann')).find((p) => p.label === 'github')?.disabled).toBe(true);
    expect((await personalAccess(db, 'ann')).switchedOff?.has('mcp:github')).toBe(false);
  });

  it('switching the skill off leaves the server on', async () => {
    const db = sqliteDatabase(openDb(':memory:'));
    await setSkillPref(db, 'ann', { ...served, root: 'mcp:mcp', frontmatter: {} }, served.name, true);
    expect((await personalAccess(db, 'ann')).switchedOff?.has('mcp:github')).toBe(true);
    expect((await listMcpPrefs({ db, mcp }, 'ann')).find((p) => p.label === 'github')?.disabled).toBe(false);
  });
});
