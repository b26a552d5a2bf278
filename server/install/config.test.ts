/** Where installs go: the user's skillchat root by default, never the project tree; configurable. */
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
    });
    expect(config.limits.hiddenText).toBe('warn');
  });

  it('uses the first root when the roots are replaced, and SKILLCHAT_INSTALL_ROOT over everything', () => {
    const roots = loadConfig({ appDir, home, env: { SKILLCHAT_SKILL_ROOTS: '/srv/a:/srv/b' } });
    expect(roots.install.root).toBe('/srv/a');
    const env = { SKILLCHAT_SKILL_ROOTS: '/srv/a', SKILLCHAT_INSTALL_ROOT: '~/mine' };
    expect(loadConfig({ appDir, home, env }).install.root).toBe(path.join(home, 'mine'));
  });
});
