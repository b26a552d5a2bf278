import { describe, expect, it } from 'vitest';
import { buildTree, groupRunFiles, parseDelimited, type TreeNode, viewKind } from './tree';

type F = { name: string; change?: 'created' | 'changed' };

/** The tree as lines: `folder/ (files, changed)` and `file`, indented. */
function outline(nodes: TreeNode<F>[], depth = 0): string[] {
  return nodes.flatMap((n) =>
    n.kind === 'folder'
      ? [`${'  '.repeat(depth)}${n.name}/ (${n.fileCount}, ${n.changedCount})`, ...outline(n.children, depth + 1)]
      : [`${'  '.repeat(depth)}${n.name}`],
  );
}

describe('buildTree', () => {
  it('nests paths into folders, folders first, and counts the marked files in each folder', () => {
    const files: F[] = [
      { name: 'report.pdf' },
      { name: 'unpacked/word/document.xml', change: 'created' },
      { name: 'unpacked/[Content_Types].xml', change: 'changed' },
      { name: 'pages/p-2.png' },
      { name: 'pages/p-1.png', change: 'created' },
      { name: 'a.txt' },
    ];
    const tree = buildTree(files, (f) => f.change !== undefined);
    expect(outline(tree.children)).toEqual([
      'pages/ (2, 1)',
      '  p-1.png',
      '  p-2.png',
      'unpacked/ (2, 2)',
      '  word/ (1, 1)',
      '    document.xml',
      '  [Content_Types].xml',
      'a.txt',
      'report.pdf',
    ]);
    expect([tree.fileCount, tree.changedCount]).toEqual([6, 3]);
    const pages = tree.children[0];
    expect(pages?.kind === 'folder' && pages.children.map((c) => c.path)).toEqual(['pages/p-1.png', 'pages/p-2.png']);
  });
});

describe('groupRunFiles', () => {
  it('keeps top-level files and a folder of a few as cards, and folds a folder of many into one group', () => {
    const unpacked = Array.from({ length: 16 }, (_, i) => ({ name: `unpacked/part${i}.xml` }));
    const groups = groupRunFiles([{ name: 'out.docx' }, ...unpacked, { name: 'pages/p-1.png' }]);
    expect(groups.map((g) => (g.kind === 'file' ? g.file.name : `${g.folder}/ x${g.files.length}`))).toEqual([
      'out.docx',
      'pages/p-1.png',
      'unpacked/ x16',
    ]);
  });
});

describe('parseDelimited', () => {
  it('reads quoted fields with separators, doubled quotes and line breaks inside', () => {
    const { rows, truncated } = parseDelimited(
      'name,note\r\n"Lovelace, Ada","said ""hi""\nthen left"\nBabbage,\n',
      ',',
      10,
    );
    expect(rows).toEqual([
      ['name', 'note'],
      ['Lovelace, Ada', 'said "hi"\nthen left'],
      ['Babbage', ''],
    ]);
    expect(truncated).toBe(false);
  });

  it('stops at the row cap and says so; TSV splits on tabs', () => {
    const text = Array.from({ length: 10 }, (_, i) => `${i}\tx`).join('\n');
    const { rows, truncated } = parseDelimited(text, '\t', 3);
    expect(rows).toEqual([
      ['0', 'x'],
      ['1', 'x'],
      ['2', 'x'],
    ]);
    expect(truncated).toBe(true);
  });
});

describe('viewKind', () => {
  it('shows each kind of file the safe way', () => {
    expect(viewKind('a.svg', 'image/svg+xml')).toBe('svg');
    expect(viewKind('a.png', 'image/png')).toBe('image');
    expect(viewKind('a.pdf', 'application/pdf')).toBe('pages');
    expect(viewKind('deck.pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation')).toBe(
      'pages',
    );
    expect(viewKind('t.tsv', 'text/tab-separated-values')).toBe('table');
    expect(viewKind('README.md', 'text/markdown')).toBe('markdown');
    expect(viewKind('app.html', 'text/html')).toBe('html');
    expect(viewKind('word/document.xml', 'application/xml')).toBe('text');
    expect(viewKind('a.bin', 'application/octet-stream')).toBe('none');
  });
});
