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

    const later = await runCommand(
      'soffice --headless --convert-to pdf --outdir out in.docx t.csv && pdftotext out/in.pdf - && pdftotext out/t.pdf -',
      { execution, chatId: 'kept-a' },
    );
    expect(later.exitCode, later.stderr).toBe(0);
    expect(later.stdout).toContain(
      'convert /workspace/in.docx as a Writer document -> /workspace/out/in.pdf using filter : writer_pdf_Export\n' +
        'convert /workspace/t.csv as a Calc document -> /workspace/out/t.pdf using filter : calc_pdf_Export\n',
    );
    expect(later.stdout).toContain('Hello from the kept office.');
    expect(later.stdout).toMatch(/apples\s+3/);
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
