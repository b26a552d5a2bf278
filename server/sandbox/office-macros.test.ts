/**
 * Converting a document with LibreOffice in the sandbox, the way the document skills do (office.py: a fresh
 * profile, `--headless --invisible --norestore --nologo --nodefault --convert-to`), never runs the document's
 * macros. The fixture (fixtures/office-macro/on-open-macro/, zipped here into an .odt) binds a Basic macro to the
 * document's load event (`dom:load`); the macro writes `MACRO_RAN` next to the document.
 *
 * What prevents it is the conversion path itself, not the profile: for `--convert-to` (as for printing and `--cat`)
 * LibreOffice's dispatch code passes no `MacroExecutionMode`, and the loader then defaults to `NEVER_EXECUTE`
 * (framework LoadEnv). The fresh profile's macro security stays at the packaged default (level 2, High) on top.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeInstalled } from '../toolchain/skills-runtime';
import { type ExecutionConfig, resolveExecutionConfig } from './config';
import { runCommand } from './run';
import { bwrapAvailability } from './select';

const APP = path.join(import.meta.dirname, '..', '..');
const RUNTIME = process.env.SKILLCHAT_RUNTIME_DIR ?? path.join(APP, 'data', 'runtime');
const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'office-macro', 'on-open-macro');
const soffice = fs.existsSync('/usr/bin/soffice');
const ready = soffice && (await bwrapAvailability(100_000)).ok && (await runtimeInstalled(RUNTIME));

let tmp: string;
let config: ExecutionConfig;
let odt: Buffer;

/** The fixture as an .odt: `mimetype` first and stored, as ODF requires. */
function zipFixture(target: string): void {
  execFileSync('python3', [
    '-c',
    `import os, sys, zipfile
src, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, 'w') as z:
    z.write(os.path.join(src, 'mimetype'), 'mimetype', compress_type=zipfile.ZIP_STORED)
    for root, _, files in os.walk(src):
        for f in sorted(files):
            rel = os.path.relpath(os.path.join(root, f), src)
            if rel != 'mimetype': z.write(os.path.join(root, f), rel, compress_type=zipfile.ZIP_DEFLATED)`,
    FIXTURE,
    target,
  ]);
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-office-macro-'));
  config = resolveExecutionConfig({}, tmp, tmp, { SKILLCHAT_RUNTIME_DIR: RUNTIME });
  zipFixture(path.join(tmp, 'macro.odt'));
  odt = fs.readFileSync(path.join(tmp, 'macro.odt'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe.skipIf(!ready)('a document macro during conversion', () => {
  it('is in the document: LibreOffice reads its Basic library (the control)', () => {
    const profile = path.join(tmp, 'cat-profile');
    const listed = execFileSync(
      'soffice',
      [`-env:UserInstallation=file://${profile}`, '--headless', '--script-cat', path.join(tmp, 'macro.odt')],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(listed).toContain("Library: 'Standard' children: 1");
    expect(listed).toContain('MACRO_RAN');
  }, 90_000);

  it('never runs when the sandbox converts it as office.py does', async () => {
    const b64 = odt.toString('base64');
    const r = await runCommand(
      `echo '${b64}' | base64 -d > macro.odt && profile=$(mktemp -d) && soffice -env:UserInstallation=file://$profile --headless --invisible --norestore --nologo --nodefault --convert-to pdf --outdir out macro.odt >/dev/null 2>&1; ls out; ls`,
      { execution: config, chatId: 'office-macro' },
    );
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('macro.pdf');
    expect(r.stdout).not.toContain('MACRO_RAN');
    expect(r.files.map((f) => f.name)).not.toContain('MACRO_RAN');
  }, 120_000);
});
