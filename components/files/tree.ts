/**
 * A chat's files as people see them: a tree of folders (a script's `unpacked/`, `pages/`) built from the flat list
 * of paths, and a run's files grouped for its card, a folder of many files as one line. Pure, for the panel and the
 * cards alike.
 */

export interface TreeFile<F> {
  kind: 'file';
  /** The last segment of the path. */
  name: string;
  path: string;
  file: F;
}

export interface TreeFolder<F> {
  kind: 'folder';
  name: string;
  path: string;
  children: TreeNode<F>[];
  /** Files anywhere below. */
  fileCount: number;
  /** Files anywhere below that the latest run created or changed. */
  changedCount: number;
}

export type TreeNode<F> = TreeFile<F> | TreeFolder<F>;

/** Folders first, then files, each by name; `changed` says which files the latest run created or changed. */
export function buildTree<F extends { name: string }>(files: readonly F[], changed: (f: F) => boolean = () => false) {
  const root: TreeFolder<F> = { kind: 'folder', name: '', path: '', children: [], fileCount: 0, changedCount: 0 };
  for (const file of files) {
    const segments = file.name.split('/');
    let folder = root;
    const mark = changed(file);
    const chain = [root];
    for (const segment of segments.slice(0, -1)) {
      const path = folder.path === '' ? segment : `${folder.path}/${segment}`;
      let next = folder.children.find((c): c is TreeFolder<F> => c.kind === 'folder' && c.name === segment);
      if (!next) {
        next = { kind: 'folder', name: segment, path, children: [], fileCount: 0, changedCount: 0 };
        folder.children.push(next);
      }
      folder = next;
      chain.push(folder);
    }
    for (const f of chain) {
      f.fileCount++;
      if (mark) f.changedCount++;
    }
    folder.children.push({ kind: 'file', name: segments.at(-1) ?? file.name, path: file.name, file });
  }
  sortTree(root);
  return root;
}

function sortTree<F>(folder: TreeFolder<F>): void {
  folder.children.sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind === 'folder' ? -1 : 1));
  for (const c of folder.children) if (c.kind === 'folder') sortTree(c);
}

/** A run's files for its card: each file on its own, except a folder's when it has more than `collapseAbove`. */
export type RunFileGroup<F> = { kind: 'file'; file: F } | { kind: 'folder'; folder: string; files: F[] };

export const COLLAPSE_ABOVE = 3;

export function groupRunFiles<F extends { name: string }>(
  files: readonly F[],
  collapseAbove = COLLAPSE_ABOVE,
): RunFileGroup<F>[] {
  const byFolder = new Map<string, F[]>();
  for (const f of files) {
    const slash = f.name.indexOf('/');
    const top = slash < 0 ? '' : f.name.slice(0, slash);
    byFolder.set(top, [...(byFolder.get(top) ?? []), f]);
  }
  const groups: RunFileGroup<F>[] = [];
  for (const f of byFolder.get('') ?? []) groups.push({ kind: 'file', file: f });
  const folders = [...byFolder.keys()].filter((k) => k !== '').sort();
  for (const folder of folders) {
    const inside = byFolder.get(folder) ?? [];
    if (inside.length > collapseAbove) groups.push({ kind: 'folder', folder, files: inside });
    else for (const f of inside) groups.push({ kind: 'file', file: f });
  }
  return groups;
}

/** How the viewer shows a file, from its name and media type. */
export type ViewKind = 'image' | 'svg' | 'pages' | 'table' | 'markdown' | 'html' | 'text' | 'none';

const OFFICE = /\.(docx?|pptx?|xlsx?|odt|odp|ods|rtf)$/i;

export function viewKind(name: string, mediaType: string): ViewKind {
  const lower = name.toLowerCase();
  if (mediaType === 'image/svg+xml' || lower.endsWith('.svg')) return 'svg';
  if (mediaType.startsWith('image/')) return 'image';
  if (mediaType === 'application/pdf' || lower.endsWith('.pdf') || OFFICE.test(lower)) return 'pages';
  if (/\.(csv|tsv)$/.test(lower)) return 'table';
  if (/\.(md|markdown)$/.test(lower)) return 'markdown';
  if (/\.html?$/.test(lower)) return 'html';
  if (mediaType.startsWith('text/') || mediaType === 'application/json' || mediaType.endsWith('+json')) return 'text';
  if (/\.(xml|txt|log|json|ya?ml|py|js|ts|sh)$/.test(lower)) return 'text';
  return 'none';
}

/**
 * CSV or TSV into rows (quoted fields with `""`, separators and line breaks inside quotes), at most `maxRows`;
 * `truncated` when there were more.
 */
export function parseDelimited(text: string, separator: ',' | '\t', maxRows: number) {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  const endRow = () => {
    row.push(field);
    rows.push(row);
    row = [];
    field = '';
  };
  for (; i < text.length && rows.length < maxRows; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === separator) {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRow();
    } else field += c;
  }
  const rest = i < text.length;
  if (!rest && (field !== '' || row.length > 0)) endRow();
  return { rows, truncated: rest && text.slice(i).trim() !== '' };
}
