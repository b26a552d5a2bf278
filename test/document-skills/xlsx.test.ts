/**
 * The xlsx skill with the real tools: SKILL.md's openpyxl example, recalc.py through LibreOffice (computed values
 * saved, errors located, stale cached values recomputed) and read.py.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { exampleFrom, missing, PYTHON, workspace } from './tools';

const ws = workspace('xlsx');
afterAll(() => ws.remove());

const cannot = missing('python', 'soffice');
if (cannot) console.warn(`xlsx skill tests skipped: ${cannot}`);

/** Every cell of the first sheet as { A1: value }, read with openpyxl. */
async function cells(file: string, dataOnly: boolean): Promise<Record<string, unknown>> {
  const code = `import json\nfrom openpyxl import load_workbook\nws = load_workbook(${JSON.stringify(file)}, data_only=${dataOnly ? 'True' : 'False'}).worksheets[0]\nprint(json.dumps({c.coordinate: c.value for r in ws.iter_rows() for c in r if c.value is not None}))`;
  return JSON.parse(await ws.python(code));
}

describe.skipIf(cannot)('xlsx', () => {
  it("recalc.py saves computed values for SKILL.md's budget example and reports success", async () => {
    ws.write('make.py', exampleFrom('xlsx', 'wb.save("budget.xlsx")'));
    await ws.exec(PYTHON, ['make.py']);
    expect(await cells('budget.xlsx', true)).not.toHaveProperty('D6'); // openpyxl writes formulas, no values

    const r = await ws.script('xlsx', 'scripts/recalc.py', ['budget.xlsx']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      status: 'success',
      file: 'budget.xlsx',
      total_formulas: 5,
      total_errors: 0,
      errors: {},
    });
    const values = await cells('budget.xlsx', true);
    expect(values).toMatchObject({ D2: 4800, D3: 1500, D4: 1800, D6: 8100, D7: 1620 });
    expect(await cells('budget.xlsx', false)).toMatchObject({ D6: '=SUM(D2:D4)' }); // formulas kept
  });

  it('reports each error type with its locations, writing to a new file', async () => {
    await ws.python(
      [
        'from openpyxl import Workbook',
        'wb = Workbook()',
        'ws = wb.active',
        'ws.title = "Model"',
        'ws.append([10, 0, "=A1/B1", "=NOSUCHFUNCTION(1)", "=VLOOKUP(99,A1:B1,2,FALSE)", "=A1*2"])',
        'wb.create_sheet("Summary")["A1"] = "=Model!F1+1"',
        'wb.save("model.xlsx")',
      ].join('\n'),
    );
    const r = await ws.script('xlsx', 'scripts/recalc.py', ['model.xlsx', 'model-checked.xlsx']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ status: 'errors_found', file: 'model-checked.xlsx', total_formulas: 5 });
    expect(report.errors).toEqual({
      '#DIV/0!': { count: 1, locations: ['Model!C1'] },
      '#NAME?': { count: 1, locations: ['Model!D1'] },
      '#N/A': { count: 1, locations: ['Model!E1'] },
    });
    expect(report.total_errors).toBe(3);
    expect(await cells('model-checked.xlsx', true)).toMatchObject({ F1: 20 });
  });

  it('recomputes values a file already caches (stale ones too), not only missing ones', async () => {
    // budget.xlsx now caches D2 = 4800 for B2 = 4; change B2 in the XML only, leaving the cached D2 stale.
    await ws.python(
      [
        'import re, zipfile',
        'src = zipfile.ZipFile("budget.xlsx")',
        'with zipfile.ZipFile("stale.xlsx", "w", zipfile.ZIP_DEFLATED) as out:',
        '    for item in src.infolist():',
        '        data = src.read(item.filename)',
        '        if item.filename == "xl/worksheets/sheet1.xml":',
        '            data, n = re.subn(rb\'(<c r="B2"[^>]*>)<v>4</v>\', rb"\\1<v>40</v>", data)',
        '            assert n == 1, "B2 not found"',
        '        out.writestr(item, data)',
      ].join('\n'),
    );
    expect(await cells('stale.xlsx', true)).toMatchObject({ B2: 40, D2: 4800 });
    const r = await ws.script('xlsx', 'scripts/recalc.py', ['stale.xlsx']);
    expect(JSON.parse(r.stdout).status).toBe('success');
    expect(await cells('stale.xlsx', true)).toMatchObject({ D2: 48000, D6: 51300 });
  });

  it('read.py shows values and formulas as Markdown; recalc.py explains a bad input', async () => {
    const r = await ws.script('xlsx', 'scripts/read.py', ['budget.xlsx', '--formulas']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('## Budget');
    expect(r.stdout).toContain('| 6 |  |  | Total | =SUM(D2:D4) → 8100 |');

    const help = await ws.script('xlsx', 'scripts/recalc.py', ['--help']);
    expect(help.stdout).toContain('usage: recalc.py');
    const bad = await ws.script('xlsx', 'scripts/recalc.py', ['nothing.xlsx']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: no such file: nothing\.xlsx/);
  });
});
