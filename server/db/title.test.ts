import { describe, expect, it } from 'vitest';
import { capTitle, DEFAULT_CHAT_TITLE, deriveTitle, describeCommand } from './title';

describe('deriveTitle', () => {
  it.each<[string, string[], string]>([
    // Plain requests: the first line, whitespace collapsed, cut at a word.
    ['Summarise this PDF', [], 'Summarise this PDF'],
    ['\n\n  first   line  \nsecond line', [], 'first line'],
    [
      'Please extract every table from the attached quarterly report and convert them to CSV',
      [],
      'Please extract every table from the attached quarterly…',
    ],
    ['x'.repeat(100), [], `${'x'.repeat(59)}…`],
    ['', [], DEFAULT_CHAT_TITLE],
    ['   \n\t', [], DEFAULT_CHAT_TITLE],
    // A `/skill` invocation is context, not the request.
    ['/docx make a memo about the Q3 offsite', [], 'docx: make a memo about the Q3 offsite'],
    ['  /pdf /xlsx   merge these\nand more', [], 'pdf, xlsx: merge these'],
    ['/commit-message', [], 'commit-message'],
    // A path is not an invocation.
    ['/etc/passwd is world-readable, why?', [], '/etc/passwd is world-readable, why?'],
    // A `$ command` is what it does: its program, its main file, a conversion's target.
    ['/docx $ soffice --headless --convert-to pdf --outdir out report.docx', [], 'docx: soffice report.docx to pdf'],
    ['$ python3 /skills/pdf/scripts/fill_form.py form.pdf values.json', [], 'fill_form.py form.pdf'],
    ['/pdf $ cd work && qpdf --decrypt "locked file.pdf" open.pdf', [], 'pdf: qpdf open.pdf'],
    ['$ LANG=C.UTF-8 pandoc -o notes.docx notes.md\necho done', [], 'pandoc notes.docx'],
    ['$ ls -la', [], 'ls'],
    // Nothing asked but files attached: the files name the chat.
    ['/docx', ['minutes.docx'], 'docx: minutes.docx'],
    ['', ['a.csv', 'b.csv'], 'a.csv, b.csv'],
    ['Compare these', ['a.csv', 'b.csv'], 'Compare these'],
  ])('%j with %j -> %j', (text, attachments, title) => {
    expect(deriveTitle(text, attachments)).toBe(title);
    expect(Array.from(deriveTitle(text, attachments)).length).toBeLessThanOrEqual(60);
  });

  it('never splits an emoji', () => {
    expect(deriveTitle('😀'.repeat(80))).toBe(`${'😀'.repeat(59)}…`);
    expect(capTitle('😀'.repeat(80), 10)).toBe(`${'😀'.repeat(9)}…`);
  });

  it('describes a command without a program as its text', () => {
    expect(describeCommand('   ')).toBe('');
    expect(describeCommand('sudo')).toBe('sudo');
  });
});
