/**
 * Page previews in the sandbox (real bwrap, pdftoppm and LibreOffice) over files made here with the tools people's
 * documents come from: a 3-page PDF in a subfolder (reportlab), a DOCX (pandoc), a PPTX (pptxgenjs); each version
 * made once, failures kept; nested paths never through a link; the runs queued under the person, with a cap.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resolveExecutionConfig } from '../sandbox/config';
import { runCommand } from '../sandbox/run';
import { bwrapAvailability } from '../sandbox/select';
import { safeRelativePath } from '../workspace/file-names';
import { saveUpload, workspaceDir } from '../workspace/workspace';
import { fileVersion } from './file-version';
import { MAX_QUEUED_PREVIEWS, previewPages, renderPreview } from './preview';

const sandboxRuns = vi.hoisted(() => ({ count: 0 }));
vi.mock('../sandbox/run', async (original) => {
  const actual = await original<typeof import('../sandbox/run')>();
  return {
    ...actual,
    runSandboxed: (...args: Parameters<typeof actual.runSandboxed>) => {
      sandboxRuns.count++;
      return actual.runSandboxed(...args);
    },
  };
});

const appDir = path.resolve(import.meta.dirname, '../..');
const runtime = path.join(appDir, 'data', 'runtime');
const python = path.join(runtime, 'python', 'bin', 'python3');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-preview-'));
const env = { SKILLCHAT_RUNTIME_DIR: runtime };
const config = resolveExecutionConfig({}, appDir, tmp, env);
const canRun =
  (await bwrapAvailability(65534)).ok &&
  ['/usr/bin/pdftoppm', '/usr/bin/pdfinfo', '/usr/bin/soffice', '/usr/bin/pandoc'].every((f) => fs.existsSync(f)) &&
  fs.existsSync(python);
const made = path.join(tmp, 'made');
const chat = 'pages';
const isPng = (png: Buffer | null) => png?.subarray(1, 4).toString() === 'PNG';

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

beforeAll(async () => {
  if (!canRun) return;
  fs.mkdirSync(made);
  const run = (cmd: string, args: string[], extra: Record<string, string> = {}) =>
    execFileSync(cmd, args, { cwd: made, env: { ...process.env, ...extra }, stdio: 'pipe' });
  run(python, [
    '-c',
    `from reportlab.pdfgen import canvas
c = canvas.Canvas("report.pdf")
for n in (1, 2, 3):
    c.drawString(72, 720, "Page %d of the report" % n)
    c.showPage()
c.save()`,
  ]);
  fs.writeFileSync(path.join(made, 'letter.md'), '# Dear team\n\nThe offsite is on **Friday**.\n');
  run('pandoc', ['letter.md', '-o', 'letter.docx']);
  run(
    process.execPath,
    [
      '-e',
      `const P = require("pptxgenjs"); const p = new P();
p.addSlide().addText("Welcome to the launch", { x: 1, y: 1 });
p.addSlide().addText("Roadmap: ship in May", { x: 1, y: 1 });
p.writeFile({ fileName: "deck.pptx" }).then(() => {});`,
    ],
    { NODE_PATH: path.join(runtime, 'node', 'node_modules') },
  );
  fs.writeFileSync(path.join(made, 'broken.pdf'), '%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ngarbage\n');
  for (const name of ['letter.docx', 'deck.pptx', 'broken.pdf']) {
    await saveUpload(config.workspace.dir, chat, name, fs.readFileSync(path.join(made, name)), config.workspace);
  }
  // A script's output in a subfolder, as Anthropic's scripts write them.
  const pages = path.join(workspaceDir(config.workspace.dir, chat), 'out', 'pages');
  fs.mkdirSync(pages, { recursive: true });
  fs.copyFileSync(path.join(made, 'report.pdf'), path.join(pages, 'report.pdf'));
});

describe('workspace paths', () => {
  it('refuses .., absolute paths, empty segments and control characters', () => {
    for (const bad of [
      '../x.pdf',
      'a/../../x.pdf',
      '/etc/x.pdf',
      'a//b.pdf',
      './x.pdf',
      'a\\b.pdf',
      'a\u0000.pdf',
      '',
    ]) {
      expect(safeRelativePath(bad), bad).toBeNull();
    }
    expect(safeRelativePath('out/pages/report.pdf')).toBe('out/pages/report.pdf');
  });

  it('never goes through a link, in a folder or at the end', async () => {
    const root = path.join(tmp, 'links');
    const dir = workspaceDir(root, 'c');
    const outside = path.join(tmp, 'outside');
    fs.mkdirSync(dir, { recursive: true });
    fs.mkdirSync(outside, { recursive: true });
    fs.writeFileSync(path.join(outside, 'secret.pdf'), 'x');
    fs.symlinkSync(outside, path.join(dir, 'away'));
    fs.symlinkSync(path.join(outside, 'secret.pdf'), path.join(dir, 'secret.pdf'));
    fs.mkdirSync(path.join(dir, 'real'));
    fs.writeFileSync(path.join(dir, 'real', 'ok.pdf'), 'x');
    expect(await fileVersion(root, 'c', 'away/secret.pdf')).toBeNull();
    expect(await fileVersion(root, 'c', 'secret.pdf')).toBeNull();
    expect(await fileVersion(root, 'c', 'real')).toBeNull();
    expect(await fileVersion(root, 'c', 'real/ok.pdf')).toMatchObject({ size: 1 });
  });
});

describe.skipIf(!canRun)('page previews in the sandbox', () => {
  it('renders every page of a PDF in a subfolder, and nothing past the last or for other files', async () => {
    expect(await previewPages(config, chat, 'out/pages/report.pdf')).toBe(3);
    const shown = await Promise.all([1, 2, 3].map((n) => renderPreview(config, chat, 'out/pages/report.pdf', n)));
    expect(shown.every(isPng)).toBe(true);
    expect(new Set(shown.map((png) => png?.toString('base64'))).size).toBe(3);
    expect(await renderPreview(config, chat, 'out/pages/report.pdf', 4)).toBeNull();
    expect(await renderPreview(config, chat, 'out/pages/report.pdf', 0)).toBeNull();
    expect(await renderPreview(config, chat, '../pages/out/pages/report.pdf')).toBeNull();
    expect(await renderPreview(config, chat, 'missing.pdf')).toBeNull();
    expect(await previewPages(config, chat, 'letter.md')).toBeNull();
  });

  it('shows a Word document and a PowerPoint deck as pages through LibreOffice', async () => {
    expect(await previewPages(config, chat, 'letter.docx')).toBe(1);
    expect(isPng(await renderPreview(config, chat, 'letter.docx'))).toBe(true);
    expect(await previewPages(config, chat, 'deck.pptx')).toBe(2);
    expect(isPng(await renderPreview(config, chat, 'deck.pptx', 2))).toBe(true);
    // LibreOffice read a copy in the run's /tmp: no lock file or PDF landed in the chat's files.
    expect(fs.readdirSync(workspaceDir(config.workspace.dir, chat)).sort()).toEqual([
      'broken.pdf',
      'deck.pptx',
      'letter.docx',
      'out',
    ]);
  });

  it('makes each page of a file version once: the same requests at once share a run, later ones none', async () => {
    const before = sandboxRuns.count;
    const [a, b] = await Promise.all([
      renderPreview(config, chat, 'letter.docx', 1),
      renderPreview(config, chat, 'letter.docx', 1),
    ]);
    expect(a?.equals(b ?? Buffer.alloc(0))).toBe(true);
    expect(sandboxRuns.count).toBe(before);
    // A new version of the file is converted again, once for two requests at the same time.
    const file = path.join(workspaceDir(config.workspace.dir, chat), 'out', 'pages', 'report.pdf');
    fs.copyFileSync(path.join(made, 'report.pdf'), `${file}.new`);
    fs.renameSync(`${file}.new`, file);
    const counted = sandboxRuns.count;
    const pages = await Promise.all([1, 2].map(() => previewPages(config, chat, 'out/pages/report.pdf')));
    expect(pages).toEqual([3, 3]);
    expect(sandboxRuns.count).toBe(counted + 1);
  });

  it('keeps a failure per file version: a damaged PDF is tried once', async () => {
    const before = sandboxRuns.count;
    expect(await renderPreview(config, chat, 'broken.pdf')).toBeNull();
    expect(sandboxRuns.count).toBe(before + 1);
    expect(await renderPreview(config, chat, 'broken.pdf')).toBeNull();
    expect(await previewPages(config, chat, 'broken.pdf')).toBeNull();
    expect(sandboxRuns.count).toBe(before + 1);
  });
});

describe.skipIf(!canRun)("one person's previews and everyone else's runs", () => {
  // One slot and a time limit LibreOffice never meets: every preview here is a run that times out.
  const slow = resolveExecutionConfig(
    { sandbox: { maxConcurrentRuns: 1, timeoutMs: 400 }, workspace: { dir: path.join(tmp, 'slow') } },
    appDir,
    tmp,
    env,
  );

  it("queues them under the person: another member's command waits for a run or two, not for every chat's", async () => {
    const chats = Array.from({ length: MAX_QUEUED_PREVIEWS + 2 }, (_, i) => `member-a-${i}`);
    for (const id of chats) {
      await saveUpload(
        slow.workspace.dir,
        id,
        'slow.docx',
        fs.readFileSync(path.join(made, 'letter.docx')),
        slow.workspace,
      );
    }
    const previews = chats.map((id) => renderPreview(slow, id, 'slow.docx', 1, 'member-a'));
    const settled = Promise.allSettled(previews);
    // Let every request reach the queue, then the other member's command.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const echo = await runCommand('echo hi', { execution: slow, chatId: 'member-b', owner: 'member-b' });
    expect(echo.stdout).toBe('hi\n');
    // Behind the run going on and at most one more of hers (0.5 s here), where a fair share per chat put it
    // behind all eight (3.3 s here, on a busy machine).
    expect(echo.queuedMs ?? 0).toBeLessThan(1_800);
    const results = await settled;
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused).toHaveLength(2);
    expect(refused[0]).toMatchObject({ reason: { status: 429, code: 'rate_limited:preview' } });
    // The timeouts are kept: asking again starts no run.
    const before = sandboxRuns.count;
    expect(await renderPreview(slow, chats[0] as string, 'slow.docx', 1, 'member-a')).toBeNull();
    expect(sandboxRuns.count).toBe(before);
  }, 60_000);
});
