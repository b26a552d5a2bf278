/**
 * A chat's kept LibreOffice (office-host.ts) on real bubblewrap and LibreOffice: the chat's first `soffice
 * --convert-to` is soffice's own and starts it, later ones are its, with the files and the words soffice gives; it is
 * the chat's alone; and what it does not take soffice still does.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceDir } from '../workspace/folders';
import { resolveExecutionConfig } from './config';
import { closeOfficeHosts, officeHosts } from './office-host';
import { prepareOffice, runCommand, runSkillScript } from './run';
import { bwrapAvailability } from './select';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-office-kept-'));
const execution = resolveExecutionConfig({ sandbox: { backend: 'bwrap' } }, tmp, tmp, {});
const canRun =
  (await bwrapAvailability(65534)).ok &&
  ['/usr/bin/soffice', '/usr/bin/pandoc', '/usr/bin/pdftotext', '/usr/lib/python3/dist-packages/uno.py'].every((f) =>
    fs.existsSync(f),
  );
const stats = () => officeHosts(execution).stats();

async function untilReady(ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!officeHosts(execution).isReady('kept-a')) {
    if (Date.now() > end) throw new Error('the kept LibreOffice did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  if (canRun) expect(await prepareOffice(execution)).not.toBeNull();
}, 180_000);
afterAll(async () => {
  await closeOfficeHosts();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe.skipIf(!canRun)("a chat's kept LibreOffice", () => {
  it("takes the chat's later conversions, with soffice's files and words", async () => {
    const first = await runCommand(
      [
        "printf '# Report\\n\\nHello from the kept office.\\n' | pandoc -o in.docx",
        "printf 'name,count\\napples,3\\n' > t.csv",
        'soffice --headless --convert-to pdf in.docx',
      ].join(' && '),
      { execution, chatId: 'kept-a' },
    );
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.files.map((f) => f.name).sort()).toEqual(['in.docx', 'in.pdf', 't.csv']);
    expect(stats()).toMatchObject({ conversions: 0, fallbacks: 1 });
    await untilReady();

    // The files are the run's own, as soffice's would be (the kept LibreOffice runs as another uid).
    const later = await runCommand(
      'soffice --headless --convert-to pdf --outdir out in.docx t.csv && pdftotext out/in.pdf - && pdftotext out/t.pdf - && chmod 600 out/t.pdf && stat -c "%a %u" out/t.pdf && id -u',
      { execution, chatId: 'kept-a' },
    );
    expect(later.exitCode, later.stderr).toBe(0);
    expect(later.stdout).toContain(
      'convert /workspace/in.docx as a Writer document -> /workspace/out/in.pdf using filter : writer_pdf_Export\n' +
        'convert /workspace/t.csv as a Calc document -> /workspace/out/t.pdf using filter : calc_pdf_Export\n',
    );
    expect(later.stdout).toContain('Hello from the kept office.');
    expect(later.stdout).toMatch(/apples\s+3/);
    const [mode, owner, uid] = later.stdout.trim().split(/\s+/).slice(-3);
    expect([mode, owner]).toEqual(['600', uid]);
    expect(later.files.map((f) => f.name).sort()).toEqual(['out/in.pdf', 'out/t.pdf']);
    expect(stats()).toMatchObject({ conversions: 1, fallbacks: 1 });

    // What it wrote is the chat's like any run's: the next run changes it, and a named filter is taken too.
    const next = await runCommand(
      "rm out/in.pdf && soffice --convert-to 'docx:MS Word 2007 XML' --outdir round in.docx && head -c 2 round/in.docx",
      { execution, chatId: 'kept-a' },
    );
    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.stdout).toContain('using filter : MS Word 2007 XML\nPK');
    expect(stats()).toMatchObject({ conversions: 2, fallbacks: 1 });
  }, 180_000);

  it("is the chat's own: another chat's run reaches neither it nor the chat's files", async () => {
    await untilReady();
    const other = await runCommand('soffice --headless --convert-to pdf in.docx; ls -A /run/skillchat; ls -A', {
      execution,
      chatId: 'kept-b',
    });
    expect(other.exitCode).toBe(0);
    // Chat B has no in.docx: soffice in B's run says so; chat A's LibreOffice never saw the request.
    expect(other.stderr).toContain('source file could not be loaded');
    expect(other.stdout).toBe('office.sock\n');
    expect(other.files).toEqual([]);
    expect(fs.readdirSync(workspaceDir(execution.workspace.dir, 'kept-a')).sort()).toEqual([
      'in.docx',
      'in.pdf',
      'out',
      'round',
      't.csv',
    ]);
  }, 120_000);

  it("takes the document skills' office.py conversions, leaving no scratch folder behind", async () => {
    await untilReady();
    const before = stats();
    const docx = { name: 'docx', dir: path.join(import.meta.dirname, '..', '..', '.skills', 'docx') };
    const r = await runSkillScript(docx, 'scripts/office.py', ['in.docx', 'pdf', '--outdir', 'py'], {
      execution,
      chatId: 'kept-a',
      skills: [docx],
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('py/in.pdf\n');
    expect(r.files.map((f) => f.name)).toEqual(['py/in.pdf']);
    expect(stats()).toMatchObject({ conversions: before.conversions + 1, fallbacks: before.fallbacks });
    expect(fs.readdirSync(workspaceDir(execution.workspace.dir, 'kept-a')).filter((n) => n.startsWith('.'))).toEqual(
      [],
    );
  }, 120_000);

  it('picks the filter soffice picks for each target it knows, for text, sheets and slides', async () => {
    const own = 'soffice -env:UserInstallation=file:///tmp/own --headless';
    const made = await runCommand(
      [
        "printf '# Report\\n\\nHello.\\n' | pandoc -o doc.docx",
        "printf 'name,count\\napples,3\\n' > sheet.csv",
        `${own} --convert-to pdf doc.docx >/dev/null`,
        `${own} --convert-to odp --infilter=impress_pdf_import doc.pdf >/dev/null`,
        // This chat's first conversion without a profile of its own: its LibreOffice starts after this run.
        'soffice --headless --convert-to odt --outdir first doc.docx >/dev/null',
      ].join(' && '),
      { execution, chatId: 'kept-p' },
    );
    expect(made.exitCode, made.stderr).toBe(0);
    const targets: Array<[string, string[]]> = [
      ['doc.docx', ['pdf', 'docx', 'odt', 'txt', 'html']],
      ['sheet.csv', ['pdf', 'xlsx', 'ods', 'csv', 'xls']],
      ['doc.odp', ['pdf', 'pptx', 'odp', 'ppt']],
    ];
    const script = (prefix: string, dir: string) =>
      targets
        .flatMap(([file, exts]) => exts.map((ext) => `${prefix} --convert-to ${ext} --outdir ${dir}/${ext} ${file}`))
        .join(' && ');
    const soffice = await runCommand(script(own, 'own'), { execution, chatId: 'kept-p', timeoutMs: 120_000 });
    expect(soffice.exitCode, soffice.stderr).toBe(0);
    for (let i = 0; i < 600 && !officeHosts(execution).isReady('kept-p'); i++)
      await new Promise((r) => setTimeout(r, 100));
    const before = stats().conversions;
    const kept = await runCommand(script('soffice --headless', 'kept'), { execution, chatId: 'kept-p' });
    expect(kept.exitCode, kept.stderr).toBe(0);
    expect(stats().conversions - before).toBe(14);
    const lines = (out: string, dir: string) =>
      out
        .split('\n')
        .filter((l) => l.startsWith('convert '))
        .map((l) => l.replaceAll(`/workspace/${dir}/`, '/workspace/OUT/'));
    expect(lines(kept.stdout, 'kept')).toEqual(lines(soffice.stdout, 'own'));
    expect(lines(kept.stdout, 'kept')).toHaveLength(14);
  }, 240_000);

  it('does not follow a link out of /workspace: soffice in the run does that conversion', async () => {
    await untilReady();
    const before = stats();
    const r = await runCommand(
      'ln -sf /tmp/warm-up.txt link.txt && ln -sfn /tmp outside && soffice --headless --convert-to pdf link.txt; soffice --headless --convert-to pdf --outdir outside in.docx; ls',
      { execution, chatId: 'kept-a' },
    );
    expect(stats()).toMatchObject({ conversions: before.conversions, fallbacks: before.fallbacks + 2 });
    // In the run, /tmp is the run's own: no warm-up.txt there, and in.pdf lands in it, not in the workspace.
    expect(r.stderr).toContain('source file could not be loaded');
    expect(r.stdout).toContain('-> /tmp/in.pdf');
    expect(r.stdout).not.toMatch(/^link\.pdf$/m);
    await runCommand('rm -f link.txt outside', { execution, chatId: 'kept-a' });
  }, 120_000);

  it('leaves what it does not take to soffice, which does it as always', async () => {
    await untilReady();
    const before = stats();
    const r = await runCommand(
      `soffice --headless --convert-to 'pdf:writer_pdf_Export:{"PageRange":{"type":"string","value":"1"}}' --outdir pages in.docx && pdftotext pages/in.pdf -`,
      { execution, chatId: 'kept-a' },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('Hello from the kept office.');
    expect(stats()).toMatchObject({ conversions: before.conversions, fallbacks: before.fallbacks + 1 });
  }, 120_000);
});
