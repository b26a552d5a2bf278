/**
 * LibreOffice's prepared profile on real bwrap: made once per version in the runtime folder, read-only in a run,
 * copied into the run's own HOME by `soffice` on first use, and with LibreOffice's macro settings as shipped.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveExecutionConfig } from './config';
import { OFFICE_MOUNT, officeProfile } from './office-profile';
import { prepareOffice, runCommand } from './run';
import { bwrapAvailability } from './select';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-office-profile-'));
const execution = resolveExecutionConfig({ sandbox: { backend: 'bwrap' } }, tmp, tmp, {});
const canRun = (await bwrapAvailability(65534)).ok && fs.existsSync('/usr/bin/soffice');
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe.skipIf(!canRun)("LibreOffice's prepared profile", () => {
  it('is made once in the runtime folder, with the macro settings LibreOffice ships', async () => {
    const folder = await prepareOffice(execution);
    expect(folder?.startsWith(path.join(execution.runtime.dir, 'office-profile'))).toBe(true);
    expect(await prepareOffice(execution)).toBe(folder);
    expect(await officeProfile(execution, () => Promise.reject(new Error('not again')))).toBe(folder);
    const settings = fs.readFileSync(
      path.join(folder as string, 'profile', 'user', 'registrymodifications.xcu'),
      'utf8',
    );
    expect(settings).not.toMatch(/MacroSecurityLevel|DisableMacrosExecution|SecureURL|TrustedAuthor/);
  }, 180_000);

  it("is copied into a run's own HOME by soffice, and cannot be changed from a run", async () => {
    const folder = (await prepareOffice(execution)) as string;
    // A file only the prepared profile has: found in the run's copy, so the conversion started from it.
    fs.writeFileSync(path.join(folder, 'profile', 'user', 'prepared-marker'), 'x');
    const run = await runCommand(
      [
        'command -v soffice',
        "printf 'hello\\n' > a.txt",
        'soffice --headless --convert-to pdf a.txt >/dev/null 2>&1',
        'test -s a.pdf && echo converted',
        'test -f "$HOME/.config/libreoffice/4/user/prepared-marker" && echo seeded',
        `touch ${OFFICE_MOUNT}/profile/user/x 2>/dev/null || echo read-only`,
        'echo "$SKILLCHAT_OFFICE_PROFILE"',
      ].join('\n'),
      { execution, chatId: 'office' },
    );
    expect(run.stdout.split('\n')).toEqual([
      `${OFFICE_MOUNT}/bin/soffice`,
      'converted',
      'seeded',
      'read-only',
      `${OFFICE_MOUNT}/profile`,
      '',
    ]);
  }, 120_000);

  it('leaves a caller that names its own profile with exactly that one', async () => {
    const run = await runCommand(
      [
        "printf 'hello\\n' > b.txt",
        'soffice -env:UserInstallation=file:///tmp/own --headless --convert-to pdf b.txt >/dev/null 2>&1',
        'test -s b.pdf && echo converted',
        'test -e "$HOME/.config/libreoffice" || echo "no copy"',
        'test -d /tmp/own/user && echo own',
      ].join('\n'),
      { execution, chatId: 'office' },
    );
    expect(run.stdout).toBe('converted\nno copy\nown\n');
  }, 120_000);
});
