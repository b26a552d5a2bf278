import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeZip, renameEntry, skillMd } from '../../test/install/test-zip';
import type { Io } from './command';
import { exportCommand, installCommand, uninstallCommand } from './install';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skills-install-cli-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function io() {
  const out: string[] = [];
  const err: string[] = [];
  const sink: Io = { out: (t) => out.push(t), err: (t) => err.push(t) };
  return { sink, out: () => out.join(''), err: () => err.join('') };
}

describe('skills install / uninstall / export', () => {
  it('installs an archive into --root, exports it, and uninstalls it', async () => {
    const archive = path.join(tmp, 'hello.skill');
    fs.writeFileSync(archive, await makeZip([{ name: 'hello/SKILL.md', content: skillMd('hello') }]));
    const root = path.join(tmp, 'root');

    const install = io();
    expect(await installCommand.run([archive, '--root', root], install.sink)).toBe(0);
    expect(install.out()).toContain(`Installed hello in ${path.join(root, 'hello')}`);
    expect(fs.existsSync(path.join(root, 'hello', 'SKILL.md'))).toBe(true);

    const exported = path.join(tmp, 'out.skill');
    const exp = io();
    expect(await exportCommand.run(['hello', '--root', root, '-o', exported], exp.sink)).toBe(0);
    expect(fs.statSync(exported).size).toBeGreaterThan(0);

    const un = io();
    expect(await uninstallCommand.run(['hello', '--root', root], un.sink)).toBe(0);
    expect(fs.existsSync(path.join(root, 'hello'))).toBe(false);

    const again = io();
    expect(await installCommand.run([exported, '--root', root], again.sink)).toBe(0);
    expect(fs.existsSync(path.join(root, 'hello', 'SKILL.md'))).toBe(true);
  });

  it('prints every reason an archive is refused, exit 1', async () => {
    const zip = await makeZip([
      { name: 'bad/SKILL.md', content: skillMd('bad') },
      { name: 'bad/link', content: '/etc', mode: 0o120777 },
      { name: 'xetc/passwd', content: 'x' },
    ]);
    const archive = path.join(tmp, 'bad.zip');
    fs.writeFileSync(archive, renameEntry(zip, 'xetc/passwd', '/etc/passwd'));
    const run = io();
    expect(await installCommand.run([archive, '--root', path.join(tmp, 'root')], run.sink)).toBe(1);
    expect(run.err()).toBe(
      'Error: cannot install (2 problems):\n' +
        '  symlink: bad/link: Symbolic links are not allowed\n' +
        '  absolute-path: /etc/passwd: Absolute paths are not allowed\n',
    );
  });
});
