/**
 * The docx skill with the real tools: pandoc in and out, SKILL.md's docx-js example, accept_changes.py through
 * LibreOffice's UNO bridge, replace_text.py with a phrase split over runs, and office.py to PDF.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { exampleFrom, missing, workspace } from './tools';

const ws = workspace('docx');
afterAll(() => ws.remove());

const cannot = missing('python', 'node', 'soffice', 'pandoc', 'poppler');
if (cannot) console.warn(`docx skill tests skipped: ${cannot}`);

// pandoc writes spans of class insertion/deletion as real tracked changes (w:ins / w:del).
const TRACKED = [
  '# Service agreement',
  '',
  'The term starts [in March]{.deletion author="Ann" date="2026-01-05T10:00:00Z"}' +
    '[on 1 April]{.insertion author="Ann" date="2026-01-05T10:00:00Z"} and lasts one year.',
  '',
  'Fees are **due monthly** to ACME Ltd.',
  '',
].join('\n');

describe.skipIf(cannot)('docx', () => {
  it('accept_changes.py accepts every tracked change and leaves a clean document', async () => {
    ws.write('agreement.md', TRACKED);
    await ws.exec('pandoc', ['agreement.md', '-o', 'agreement.docx']);
    expect(await ws.exec('pandoc', ['--track-changes=all', 'agreement.docx', '-t', 'plain'])).toContain('in March');

    const r = await ws.script('docx', 'scripts/accept_changes.py', ['agreement.docx']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('accepted 2 tracked change(s); 0 left; wrote agreement-accepted.docx\n');
    const after = await ws.exec('pandoc', [
      '--track-changes=all',
      'agreement-accepted.docx',
      '-t',
      'plain',
      '--wrap=none',
    ]);
    expect(after).toContain('The term starts on 1 April and lasts one year.');
    expect(after).not.toContain('in March');
    const xml = await ws.python(
      'import zipfile; print(zipfile.ZipFile("agreement-accepted.docx").read("word/document.xml").decode())',
    );
    expect(xml).not.toMatch(/<w:(ins|del) /);
  });

  it('replace_text.py replaces a phrase split over differently formatted runs', async () => {
    const r = await ws.script('docx', 'scripts/replace_text.py', [
      'agreement-accepted.docx',
      'agreement-v2.docx',
      'due monthly to ACME=due quarterly to Globex',
      'one year=two years',
      'not in the text=x',
    ]);
    expect(r.code).toBe(2); // one text was not found
    expect(r.stdout).toContain("'due monthly to ACME': 1 replacement(s)");
    expect(r.stdout).toContain("'not in the text': 0 replacement(s)");
    const text = await ws.exec('pandoc', ['agreement-v2.docx', '-t', 'plain', '--wrap=none']);
    expect(text).toContain('Fees are due quarterly to Globex Ltd.');
    expect(text).toContain('lasts two years.');
  });

  it("builds SKILL.md's docx-js example and converts it to a PDF holding its text", async () => {
    ws.write('make-doc.js', exampleFrom('docx', "require('docx')"));
    expect(await ws.exec('node', ['make-doc.js'])).toContain('wrote proposal.docx');
    const markdown = await ws.exec('pandoc', ['proposal.docx', '-t', 'gfm']);
    expect(markdown).toContain('# Project proposal');
    expect(markdown).toContain('We propose **three** phases.');

    const r = await ws.script('docx', 'scripts/office.py', ['proposal.docx', 'pdf']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('proposal.pdf');
    const text = await ws.exec('pdftotext', ['proposal.pdf', '-']);
    expect(text).toContain('Project proposal');
    expect(text).toContain('We propose three phases.');
    expect(text).toContain('Page 1');
  });
});
