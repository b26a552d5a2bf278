/**
 * Converting a document with LibreOffice in the sandbox, the way the document skills do, never runs the document's
 * macros, and this harness would see one that did.
 *
 * The fixture (fixtures/office-macro/on-open-macro/, zipped here into an .odt) is what LibreOffice 25.2 itself
 * saved through UNO: a Basic library added to `doc.BasicLibraries`, its `Main` bound to `OnLoad` through
 * `doc.Events` (`dom:load` in content.xml). The macro writes `$WORKSPACE/MACRO_RAN`, which in the sandbox is the
 * chat's workspace, so a run that executed it leaves a file every run reports.
 *
 * What is proven, all in the sandbox with the same harness:
 * - the control: opened through UNO (fixtures/office-macro/open-with-macros.py) in a frame with `MacroExecutionMode`
 *   ALWAYS_EXECUTE_NO_WARN, the macro runs and the marker appears; so the fixture's macro works, and so does the way
 *   it is seen.
 * - the same load without a frame (`Hidden`, as every conversion loads) or with NEVER_EXECUTE runs nothing: either
 *   is enough. LibreOffice fires a document's OnLoad only for a document shown in a frame (sfx2's
 *   `PostActivateEvent_Impl`), and `--convert-to` loads hidden and passes no `MacroExecutionMode`, which the loader
 *   turns into NEVER_EXECUTE. Macro security in the fresh or prepared profile stays at the packaged default (High).
 * - the conversions the skills make, office.py (`--headless --invisible --norestore --nologo --nodefault
 *   --convert-to` with a fresh profile), a bare `soffice --headless --convert-to` (the prepared profile's
 *   wrapper) and the same asked of the chat's kept LibreOffice (office-host.py: hidden, NEVER_EXECUTE), write the
 *   PDF and no marker.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeInstalled } from '../toolchain/skills-runtime';
import { type ExecutionConfig, resolveExecutionConfig } from './config';
import { closeOfficeHosts, officeHosts } from './office-host';
import { runCommand, runSkillScript } from './run';
import { bwrapAvailability } from './select';

const APP = path.join(import.meta.dirname, '..', '..');
const RUNTIME = process.env.SKILLCHAT_RUNTIME_DIR ?? path.join(APP, 'data', 'runtime');
const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'office-macro');
const DOCX_SKILL = { name: 'docx', dir: path.join(APP, '.skills', 'docx') };
const uno = fs.existsSync('/usr/lib/python3/dist-packages/uno.py');
const soffice = fs.existsSync('/usr/bin/soffice');
const ready = soffice && uno && (await bwrapAvailability(100_000)).ok && (await runtimeInstalled(RUNTIME));

let tmp: string;
let config: ExecutionConfig;
let odt: string;
let control: string;

/** The fixture as an .odt: `mimetype` first and stored, as ODF requires. */
function zipFixture(source: string, target: string): void {
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
    source,
    target,
  ]);
}

/** A command that first puts the document and the control script in the run's workspace. */
function withFiles(command: string): string {
  return `echo '${odt}' | base64 -d > macro.odt && echo '${control}' | base64 -d > open-with-macros.py && ${command}`;
}

/** Runs a command in a chat of its own; returns what it printed and the workspace files it left. */
async function inSandbox(chat: string, command: string) {
  const r = await runCommand(withFiles(command), { execution: config, chatId: chat });
  return { ...r, names: r.files.map((f) => f.name) };
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-office-macro-'));
  config = resolveExecutionConfig({}, tmp, tmp, { SKILLCHAT_RUNTIME_DIR: RUNTIME });
  zipFixture(path.join(FIXTURES, 'on-open-macro'), path.join(tmp, 'macro.odt'));
  odt = fs.readFileSync(path.join(tmp, 'macro.odt')).toString('base64');
  control = fs.readFileSync(path.join(FIXTURES, 'open-with-macros.py')).toString('base64');
});
afterAll(async () => {
  await closeOfficeHosts();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe.skipIf(!ready)('a document macro during conversion', () => {
  it('runs when LibreOffice opens the document in a frame with macros allowed (the control)', async () => {
    const r = await inSandbox('control', '/usr/bin/python3 open-with-macros.py macro.odt');
    expect(r.stdout, r.stderr).toContain('loaded');
    expect(r.names).toContain('MACRO_RAN');
  }, 120_000);

  it.each([
    ['without a frame, as a conversion loads it', '--hidden'],
    ['with NEVER_EXECUTE', '--never'],
  ])(
    'does not run when the control opens it %s',
    async (_, flag) => {
      const r = await inSandbox(`control${flag.slice(1)}`, `/usr/bin/python3 open-with-macros.py macro.odt ${flag}`);
      expect(r.stdout, r.stderr).toContain('loaded');
      expect(r.names).not.toContain('MACRO_RAN');
    },
    120_000,
  );

  it('never runs when office.py converts it', async () => {
    const put = await runCommand(withFiles('true'), { execution: config, chatId: 'office-py' });
    expect(put.exitCode, put.stderr).toBe(0);
    const r = await runSkillScript(DOCX_SKILL, 'scripts/office.py', ['macro.odt', 'pdf', '--outdir', 'out'], {
      execution: config,
      chatId: 'office-py',
      skills: [DOCX_SKILL],
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const names = r.files.map((f) => f.name);
    expect(names).toContain('out/macro.pdf');
    expect(names).not.toContain('MACRO_RAN');
  }, 120_000);

  it("never runs when the chat's kept LibreOffice converts it (office-host.ts)", async () => {
    // The chat's first conversion starts its LibreOffice; the macro document is its second.
    const warm = await inSandbox('kept', "printf 'x\\n' > w.txt && soffice --headless --convert-to pdf w.txt");
    expect(warm.exitCode, warm.stderr).toBe(0);
    const hosts = officeHosts(config);
    for (let i = 0; i < 600 && !hosts.isReady('kept'); i++) await new Promise((r) => setTimeout(r, 100));
    const before = hosts.stats().conversions;
    const r = await inSandbox('kept', 'soffice --headless --convert-to pdf --outdir out macro.odt; ls');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(hosts.stats().conversions).toBe(before + 1);
    expect(r.names).toContain('out/macro.pdf');
    expect(r.names).not.toContain('MACRO_RAN');
  }, 120_000);

  it('never runs when a bare soffice --convert-to converts it', async () => {
    const r = await inSandbox('bare', 'soffice --headless --convert-to pdf --outdir out macro.odt >/dev/null 2>&1; ls');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.names).toContain('out/macro.pdf');
    expect(r.names).not.toContain('MACRO_RAN');
  }, 120_000);
});
