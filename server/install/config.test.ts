/** Where installs go: the user's skillchat root by default, never the project tree; configurable. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config';

const appDir = path.join('/tmp', 'no-such-app-dir-for-install-config');
const home = path.join('/tmp', 'no-such-home');

describe('install config', () => {
  it('defaults to ~/.skillchat/skills with the default roots, with the embedded limits', () => {
    const config = loadConfig({ appDir, home, env: {} });
    expect(config.install).toEqual({
      root: path.join(home, '.skillchat', 'skills'),
      maxFiles: 1000,
      maxBytes: 50 * 1024 * 1024,
      maxRatio: 100,
      maxDownloadBytes: 20 * 1024 * 1024,
      allowPrivateNetworks: false,
      allowHosts: [],
    });
    expect(config.limits.hiddenText).toBe('warn');
  });

  it('uses the first root when the roots are replaced, and SKILLCHAT_INSTALL_ROOT over everything', () => {
    const roots = loadConfig({ appDir, home, env: { SKILLCHAT_SKILL_ROOTS: '/srv/a:/srv/b' } });
    expect(roots.install.root).toBe('/srv/a');
    const env = { SKILLCHAT_SKILL_ROOTS: '/srv/a', SKILLCHAT_INSTALL_ROOT: '~/mine' };
    expect(loadConfig({ appDir, home, env }).install.root).toBe(path.join(home, 'mine'));
  });

  it('scans the install root even when the roots replaced leave it out, last, so an install is never unread', () => {
    const env = { SKILLCHAT_SKILL_ROOTS: '/srv/a:/srv/b', SKILLCHAT_INSTALL_ROOT: '/srv/installed' };
    expect(loadConfig({ appDir, home, env }).roots.map((r) => [r.path, r.kind])).toEqual([
      ['/srv/a', 'configured'],
      ['/srv/b', 'configured'],
      ['/srv/installed', 'user-skillchat'],
    ]);
    // Already among the roots: listed once, where it was.
    const inside = { SKILLCHAT_SKILL_ROOTS: '/srv/a:/srv/b', SKILLCHAT_INSTALL_ROOT: '/srv/a' };
    expect(loadConfig({ appDir, home, env: inside }).roots.map((r) => r.path)).toEqual(['/srv/a', '/srv/b']);
  });

  it('takes network allowances from the config file, and refuses an allowHosts entry that is none', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'install-config-'));
    try {
      const write = (install: unknown) =>
        fs.writeFileSync(path.join(dir, 'skillchat.config.json'), JSON.stringify({ install }));
      write({ allowPrivateNetworks: true, allowHosts: ['mirror.lan', '10.2.0.0/16', 'fd00::/8', '192.168.1.5'] });
      expect(loadConfig({ appDir: dir, home, env: {} }).install).toMatchObject({
        allowPrivateNetworks: true,
        allowHosts: ['mirror.lan', '10.2.0.0/16', 'fd00::/8', '192.168.1.5'],
      });
      write({ allowHosts: ['10.0.0.0/33'] });
      expect(() => loadConfig({ appDir: dir, home, env: {} })).toThrow(
        /install\.allowHosts\.0: must be a host name, an IP address or a CIDR range/,
      );
      write({ allowHosts: ['http://mirror.lan/'] });
      expect(() => loadConfig({ appDir: dir, home, env: {} })).toThrow(/must be a host name/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
