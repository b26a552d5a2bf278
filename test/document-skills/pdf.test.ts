/**
 * The pdf skill with the real tools: SKILL.md's reportlab example, text (pdftotext) and tables (extract_tables.py),
 * form listing and filling (read back with pypdf), and its qpdf and pdftoppm commands.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exampleFrom, missing, PYTHON, SKILLS, workspace } from './tools';

const ws = workspace('pdf');
afterAll(() => ws.remove());

const cannot = missing('python', 'qpdf', 'poppler');
if (cannot) console.warn(`pdf skill tests skipped: ${cannot}`);

const REPORT = `
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Table, TableStyle

styles = getSampleStyleSheet()
table = Table([["Region", "Sales", "Growth"], ["North", "1200", "4%"], ["South", "950", "7%"]])
table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
SimpleDocTemplate("report.pdf", pagesize=A4).build([
    Paragraph("Quarterly sales report", styles["Title"]),
    Paragraph("Revenue grew in every region.", styles["Normal"]),
    table,
    PageBreak(),
    Paragraph("Appendix: method", styles["Heading1"]),
])
`;

describe.skipIf(cannot)('pdf', () => {
  it('extracts text with pdftotext and tables with extract_tables.py (Markdown and CSV)', async () => {
    ws.write('report.py', REPORT);
    await ws.exec(PYTHON, ['report.py']);
    const text = await ws.exec('pdftotext', ['-layout', 'report.pdf', '-']);
    expect(text).toContain('Quarterly sales report');
    expect(text).toMatch(/North\s+1200\s+4%/);

    const r = await ws.script('pdf', 'scripts/extract_tables.py', ['report.pdf']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      '## Page 1, table 1\n\n| Region | Sales | Growth |\n|---|---|---|\n| North | 1200 | 4% |\n| South | 950 | 7% |',
    );
    expect(ws.read('report-p1-t1.csv')).toBe('Region,Sales,Growth\r\nNorth,1200,4%\r\nSouth,950,7%\r\n');
    const none = await ws.script('pdf', 'scripts/extract_tables.py', ['report.pdf', '--pages', '2', '--no-csv']);
    expect(none.stdout).toMatch(/^No tables found/);
  });

  it('lists and fills form fields; pypdf reads the values back; unknown names are refused', async () => {
    fs.copyFileSync(path.join(SKILLS, 'pdf', 'assets', 'sample-form.pdf'), ws.file('form.pdf'));
    const listed = await ws.script('pdf', 'scripts/list_fields.py', ['form.pdf']);
    expect(JSON.parse(listed.stdout).fields.map((f: { name: string; type: string }) => [f.name, f.type])).toEqual([
      ['full_name', 'text'],
      ['email', 'text'],
      ['plan', 'choice'],
      ['newsletter', 'checkbox'],
    ]);

    ws.write('values.json', JSON.stringify({ email: 'ada@example.org', plan: 'pro', newsletter: true }));
    const fill = await ws.script('pdf', 'scripts/fill_fields.py', [
      'form.pdf',
      'filled.pdf',
      '--values',
      'values.json',
      'full_name=Ada Lovelace',
    ]);
    expect(fill.code, fill.stderr).toBe(0);
    const values = JSON.parse(
      await ws.python(
        'import json\nfrom pypdf import PdfReader\nfields = PdfReader("filled.pdf").get_fields()\n' +
          'print(json.dumps({name: str(field.get("/V")) for name, field in fields.items()}))',
      ),
    );
    expect(values).toEqual({
      full_name: 'Ada Lovelace',
      email: 'ada@example.org',
      plan: 'pro',
      newsletter: '/Yes',
    });

    const typo = await ws.script('pdf', 'scripts/fill_fields.py', ['form.pdf', 'x.pdf', 'fullname=Ada']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown field(s): fullname; the form has: full_name, email, plan, newsletter');
    const option = await ws.script('pdf', 'scripts/fill_fields.py', ['form.pdf', 'x.pdf', 'plan=gold']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("plan: 'gold' is not one of basic, pro, team");
    expect(fs.existsSync(ws.file('x.pdf'))).toBe(false);
  });

  it("runs SKILL.md's qpdf and pdftoppm commands and its reportlab example", async () => {
    ws.write('invoice.py', exampleFrom('pdf', 'SimpleDocTemplate("invoice.pdf"'));
    await ws.exec(PYTHON, ['invoice.py']);
    expect(await ws.exec('pdftotext', ['invoice.pdf', '-'])).toContain('Invoice 42');

    const pages = async (file: string) => Number((await ws.exec('pdfinfo', [file])).match(/Pages:\s+(\d+)/)![1]);
    await ws.exec('qpdf', ['--empty', '--pages', 'report.pdf', 'invoice.pdf', '--', 'merged.pdf']);
    expect(await pages('merged.pdf')).toBe(3);
    await ws.exec('qpdf', ['merged.pdf', '--pages', '.', '1-r2', '--', 'without-last.pdf']);
    expect(await pages('without-last.pdf')).toBe(2);
    await ws.exec('qpdf', ['merged.pdf', '--rotate=+90:2', '--', 'rotated.pdf']);
    expect(await ws.exec('pdfinfo', ['-f', '2', '-l', '2', 'rotated.pdf'])).toMatch(/Page\s+2 rot:\s+90/);
    await ws.exec('pdftoppm', ['-png', '-r', '50', 'merged.pdf', 'page']);
    expect(fs.readdirSync(ws.dir).filter((f) => /^page-\d+\.png$/.test(f))).toHaveLength(3);
  });
});
