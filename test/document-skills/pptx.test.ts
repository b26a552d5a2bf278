/**
 * The pptx skill with the real tools: SKILL.md's pptxgenjs example, extract_text.py (titles, bullets, tables,
 * notes, in presentation order) and thumbnail.py (LibreOffice, pdftoppm, Pillow).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { exampleFrom, missing, workspace } from './tools';

const ws = workspace('pptx');
afterAll(() => ws.remove());

const cannot = missing('python', 'node', 'soffice', 'poppler');
if (cannot) console.warn(`pptx skill tests skipped: ${cannot}`);

describe.skipIf(cannot)('pptx', () => {
  it("builds SKILL.md's pptxgenjs deck and extract_text.py reads it back slide by slide", async () => {
    ws.write('deck.js', exampleFrom('pptx', "require('pptxgenjs')"));
    expect(await ws.exec('node', ['deck.js'])).toContain('wrote quarterly-review.pptx');

    const r = await ws.script('pptx', 'scripts/extract_text.py', ['quarterly-review.pptx']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        '## Slide 1',
        '- Quarterly review',
        '- Q3 2026 - Sales team',
        '> Notes: Welcome and agenda.',
        '',
        '## Slide 2',
        '- Highlights',
        '- Revenue up 12%',
        '- Two new markets opened',
        '',
        '## Slide 3',
        '- Sales by region',
        '- Region | Sales',
        '- North | 1,200',
        '- South | 950',
        '',
        '',
      ].join('\n'),
    );
  });

  it('thumbnail.py renders a labelled grid PNG of plausible size', async () => {
    const r = await ws.script('pptx', 'scripts/thumbnail.py', ['quarterly-review.pptx', 'grid.png', '--cols', '2']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('wrote grid.png: slides 1-3 of 3\n');
    const [width, height] = JSON.parse(
      await ws.python('from PIL import Image\nprint(list(Image.open("grid.png").size))'),
    ) as [number, number];
    // 2 columns of 320 px slides (16:9, so 180 px high) in 2 rows, with gaps and labels.
    expect(width).toBeGreaterThanOrEqual(2 * 320);
    expect(width).toBeLessThan(2 * 320 + 100);
    expect(height).toBeGreaterThanOrEqual(2 * 180);
    expect(height).toBeLessThan(2 * 180 + 150);

    const missingDeck = await ws.script('pptx', 'scripts/thumbnail.py', ['nope.pptx']);
    expect(missingDeck.code).toBe(1);
    expect(missingDeck.stderr).toContain('error: no such file: nope.pptx');
  });
});
