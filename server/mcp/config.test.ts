// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${env:NAME}` is the config's own syntax, written as the operator writes it
/** `mcpServers` and `mcp` in skillchat.config.json: the shapes people copy from other clients load; mistakes are ConfigErrors that say what to fix. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config';
import { createMcpPolicy } from './permissions';
import { mcpWireName, nameTools } from './tool-names';

function load(file: unknown) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-mcp-config-'));
  fs.writeFileSync(path.join(dir, 'skillchat.config.json'), JSON.stringify(file));
  try {
    return loadConfig({ appDir: dir, env: {}, home: dir });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('mcpServers config', () => {
  it("loads Claude Desktop's stdio shape and Claude Code's http shape, with defaults for the client", () => {
    const config = load({
      mcpServers: {
        files: { command: 'npx', args: ['-y', 'server-filesystem', '/srv'], env: { TOKEN: '${env:FILES_TOKEN}' } },
        github: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${env:GH}' } },
      },
      mcp: { rules: { 'github/*': 'ask' } },
    });
    expect(Object.keys(config.mcp.servers)).toEqual(['files', 'github']);
    expect(config.mcp).toMatchObject({ timeoutMs: 30_000, connectTimeoutMs: 10_000, maxOutputBytes: 65_536 });
    expect(config.mcp.rules).toEqual({ 'github/*': 'ask' });
    expect(load({}).mcp).toMatchObject({ servers: {}, rules: {} });
  });

  it.each([
    [
      'a label with an underscore',
      { mcpServers: { my_server: { command: 'x' } } },
      /mcpServers: each server label must be 1-31 lowercase/,
    ],
    ['a label with capitals', { mcpServers: { GitHub: { command: 'x' } } }, /each server label must be/],
    ['neither command nor url', { mcpServers: { a: { args: ['x'] } } }, /give either "command"/],
    ['both command and url', { mcpServers: { a: { command: 'x', url: 'https://e.com' } } }, /give either "command"/],
    [
      'headers on a stdio server',
      { mcpServers: { a: { command: 'x', headers: { A: 'b' } } } },
      /"headers" belong to an HTTP/,
    ],
    ['an unknown field', { mcpServers: { a: { command: 'x', autoApprove: [] } } }, /autoApprove/],
    ['the old SSE transport', { mcpServers: { a: { type: 'sse', url: 'https://e.com' } } }, /mcpServers\.a\.type/],
    ['a URL that is not http', { mcpServers: { a: { url: 'file:///etc/passwd' } } }, /must be an http/],
    [
      'a misspelt secret',
      { mcpServers: { a: { url: 'https://e.com', headers: { A: '${GH_TOKEN}' } } } },
      /\$\{env:NAME\}/,
    ],
    ['an unknown rule value', { mcp: { rules: { 'a/*': 'maybe' } } }, /mcp\.rules/],
    ['OAuth on a stdio server', { mcpServers: { a: { command: 'x', auth: { kind: 'oauth' } } } }, /"auth" belongs/],
    [
      'a client secret without a client id',
      { mcpServers: { a: { url: 'https://e.com', auth: { kind: 'oauth', clientSecret: '${env:S}' } } } },
      /"auth\.clientSecret" goes with "auth\.clientId"/,
    ],
    [
      'a client metadata document that is not https',
      { mcpServers: { a: { url: 'https://e.com', auth: { kind: 'oauth', clientMetadataUrl: 'http://e.com/c' } } } },
      /must be an https:\/\/ URL/,
    ],
  ])('%s is a ConfigError', (_, file, message) => {
    expect(() => load(file)).toThrow(ConfigError);
    expect(() => load(file)).toThrow(message);
  });
});

describe('an OAuth server entry', () => {
  it('loads with a pre-registered client, a metadata document or neither (dynamic registration)', () => {
    const config = load({
      mcpServers: {
        notion: { url: 'https://mcp.example.com/mcp', auth: { kind: 'oauth' } },
        linear: {
          url: 'https://linear.example.com/mcp',
          auth: { kind: 'oauth', clientId: 'skillchat', clientSecret: '${env:LINEAR_SECRET}', scopes: ['read'] },
        },
        docs: {
          url: 'https://docs.example.com/mcp',
          auth: { kind: 'oauth', clientMetadataUrl: 'https://chat.example.com/client.json' },
        },
      },
    });
    expect(config.mcp.servers.notion?.auth).toEqual({ kind: 'oauth' });
    expect(config.mcp.servers.linear?.auth?.clientSecret).toBe('${env:LINEAR_SECRET}');
    expect(config.mcp.servers.docs?.auth?.clientMetadataUrl).toBe('https://chat.example.com/client.json');
  });
});

describe('MCP tool names and rules', () => {
  it('wire names fit ^[a-zA-Z0-9_-]{1,64}$; unsafe or long names get a stable hash suffix, clashes are left out', () => {
    expect(mcpWireName('github', 'list_issues')).toBe('mcp_github_list_issues');
    const dotted = mcpWireName('docs', 'search.pages');
    expect(dotted).toMatch(/^mcp_docs_search_pages-[0-9a-f]{6}$/);
    expect(mcpWireName('docs', 'search.pages')).toBe(dotted);
    const long = mcpWireName('a-very-long-server-label-xxxxxx', 'x'.repeat(100));
    expect(long).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(long).toHaveLength(64);
    const { named, skipped } = nameTools('s', ['a.b', 'a,b', 'ok', dotted.replace('mcp_docs_', '')]);
    expect(new Set(named.map((n) => n.wireName)).size).toBe(named.length);
    expect(named.map((n) => n.name)).toEqual(['a.b', 'a,b', 'ok', `search_pages-${dotted.slice(-6)}`]);
    expect(skipped).toEqual([]);
    expect(nameTools('s', ['ok', 'ok']).skipped).toEqual([
      { name: 'ok', reason: `its tool name mcp_s_ok is already "ok"'s` },
    ]);
  });

  it('rules: most specific server/tool glob wins; a bare label is the whole server; no rule allows', () => {
    const policy = createMcpPolicy({ 'github/*': 'ask', 'github/delete_*': 'deny', files: 'deny', '*/*': 'allow' });
    expect(policy('github', 'list_issues')).toEqual({ permission: 'ask', reason: 'rule "github/*"' });
    expect(policy('github', 'delete_repo')).toEqual({ permission: 'deny', reason: 'rule "github/delete_*"' });
    expect(policy('files', 'read')).toEqual({ permission: 'deny', reason: 'rule "files"' });
    expect(policy('other', 'x').permission).toBe('allow');
    expect(createMcpPolicy({})('x', 'y')).toEqual({
      permission: 'allow',
      reason: 'default for a configured MCP server',
    });
  });
});
