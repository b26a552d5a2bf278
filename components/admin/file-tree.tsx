/**
 * A skill's files as a tree: folders as their own rows, files by name under them, with sizes and markers for
 * binary, symlinked and unreadable files. The listing arrives depth-first and sorted, so one pass builds it.
 */
import type { AdminSkillFile } from '@/server/admin/skill-detail';

type TreeRow =
  | { kind: 'dir'; path: string; name: string; depth: number }
  | { kind: 'file'; file: AdminSkillFile; name: string; depth: number };

export function treeRows(files: readonly AdminSkillFile[]): TreeRow[] {
  const rows: TreeRow[] = [];
  const shown = new Set<string>();
  for (const file of files) {
    const parts = file.path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (shown.has(dir)) continue;
      shown.add(dir);
      rows.push({ kind: 'dir', path: dir, name: `${parts[i - 1]}/`, depth: i - 1 });
    }
    rows.push({ kind: 'file', file, name: parts[parts.length - 1] ?? file.path, depth: parts.length - 1 });
  }
  return rows;
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export function FileTree({ files }: { files: readonly AdminSkillFile[] }) {
  return (
    <ul className="file-tree" data-testid="skill-files">
      {treeRows(files).map((row) =>
        row.kind === 'dir' ? (
          <li key={`d:${row.path}`} className="file-tree__dir">
            <code style={{ paddingLeft: `${row.depth * 1.1}rem` }}>{row.name}</code>
          </li>
        ) : (
          <li key={`f:${row.file.path}`} data-testid="skill-file-row" data-path={row.file.path}>
            <code style={{ paddingLeft: `${row.depth * 1.1}rem` }}>{row.name}</code>
            <span className="file-tree__meta">
              {row.file.kind === 'symlink' && <span className="pill">symlink</span>}
              {row.file.binary && (
                <span className="pill pill--binary" data-testid="skill-file-binary">
                  binary
                </span>
              )}
              {row.file.error && (
                <span className="pill pill--error" title={row.file.error}>
                  unreadable
                </span>
              )}
              <span className="muted small">{formatSize(row.file.size)}</span>
            </span>
          </li>
        ),
      )}
    </ul>
  );
}
