import { describe, expect, it } from 'vitest';
import { convertOutput, parseConvert } from './office-args';

const ok = (args: string[], cwd = '/workspace') => {
  const parsed = parseConvert(args, cwd);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.request;
};
const refused = (args: unknown, cwd: unknown = '/workspace') => {
  const parsed = parseConvert(args, cwd);
  return parsed.ok ? null : parsed.reason;
};

describe('the soffice command lines the kept LibreOffice takes', () => {
  it('takes --convert-to of workspace files, in both spellings, with the options that change nothing', () => {
    expect(ok(['--headless', '--convert-to', 'pdf', 'in.docx'])).toEqual({
      files: ['/workspace/in.docx'],
      to: 'pdf',
      filter: null,
      infilter: null,
      outdir: '/workspace',
    });
    expect(
      ok(
        ['-headless', '--norestore', '--convert-to=docx:MS Word 2007 XML', '--outdir', 'out', 'a.odt', 'b/c.odt'],
        '/workspace/sub',
      ),
    ).toEqual({
      files: ['/workspace/sub/a.odt', '/workspace/sub/b/c.odt'],
      to: 'docx',
      filter: 'MS Word 2007 XML',
      infilter: null,
      outdir: '/workspace/sub/out',
    });
    expect(ok(['--convert-to', 'xlsx', '--infilter=Text - txt - csv (StarCalc)', '/workspace/t.csv']).infilter).toBe(
      'Text - txt - csv (StarCalc)',
    );
  });

  it('leaves everything else to soffice itself', () => {
    expect(refused(['--headless', 'in.docx'])).toBe('not a conversion');
    expect(refused(['-env:UserInstallation=file:///tmp/p', '--convert-to', 'pdf', 'in.docx'])).toMatch(/soffice's own/);
    expect(refused(['--convert-to', 'pdf', '--print-to-file', 'in.docx'])).toMatch(/--print-to-file/);
    expect(
      refused(['--convert-to', 'pdf:writer_pdf_Export:{"PageRange":{"type":"string","value":"1"}}', 'a.docx']),
    ).toMatch(/--convert-to/);
    expect(refused(['--convert-to', 'pdf:', 'a.docx'])).toMatch(/--convert-to/);
    expect(refused(['--convert-to', '../x', 'a.docx'])).toMatch(/--convert-to/);
    expect(refused(['--convert-to', 'pdf', '--convert-to', 'docx', 'a.odt'])).toMatch(/--convert-to/);
    expect(refused(['--convert-to', 'xlsx', '--infilter=Text - txt - csv (StarCalc):59,34,76', 't.csv'])).toMatch(
      /--infilter/,
    );
    expect(refused(['--convert-to', 'pdf'])).toBe('no files, or too many');
    expect(refused(['--convert-to'])).toBe('--convert-to without a value');
  });

  it('never reaches past /workspace: files, the output folder, the working folder, URLs', () => {
    expect(refused(['--convert-to', 'pdf', '/tmp/in.docx'])).toBe('a file or folder outside /workspace');
    expect(refused(['--convert-to', 'pdf', '../etc/passwd'])).toBe('a file or folder outside /workspace');
    expect(refused(['--convert-to', 'pdf', '--outdir', '/skill', 'in.docx'])).toBe(
      'a file or folder outside /workspace',
    );
    expect(refused(['--convert-to', 'pdf', 'file:///workspace/in.docx'])).toBe('a file or folder outside /workspace');
    expect(refused(['--convert-to', 'pdf', 'in.docx'], '/tmp')).toBe('the working folder is outside /workspace');
    expect(refused(['--convert-to', 'pdf', 'in.docx'], '/workspace-other')).toBe(
      'the working folder is outside /workspace',
    );
    expect(refused('--convert-to pdf in.docx')).toBe('not a command line');
    expect(refused(['--convert-to', 'pdf', 'in.docx'], 7)).toBe('not a command line');
  });
});

describe("what is printed for a kept LibreOffice's conversion", () => {
  it("is soffice's own line, and its Overwriting line when the file was there", () => {
    expect(
      convertOutput([
        {
          source: '/workspace/a.docx',
          target: '/workspace/a.pdf',
          filter: 'writer_pdf_Export',
          app: 'Writer',
          existed: false,
        },
        {
          source: '/workspace/b.xlsx',
          target: '/workspace/b.pdf',
          filter: 'calc_pdf_Export',
          app: 'Calc',
          existed: true,
        },
      ]),
    ).toBe(
      'convert /workspace/a.docx as a Writer document -> /workspace/a.pdf using filter : writer_pdf_Export\n' +
        'convert /workspace/b.xlsx as a Calc document -> /workspace/b.pdf using filter : calc_pdf_Export\n' +
        'Overwriting: /workspace/b.pdf\n',
    );
  });
});
