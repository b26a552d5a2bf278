/** The frame the admin page's lists share: a sentence when there is nothing yet, else a scrollable table. */
import type { ReactNode } from 'react';

export interface Column {
  label: string;
  /** Named for screen readers only (an actions column). */
  hidden?: boolean;
  className?: string;
}

export function AdminTable({
  columns,
  rows,
  empty,
}: {
  columns: Column[];
  /** The rendered `<tr>`s; an empty array shows `empty` instead. */
  rows: ReactNode[];
  empty: { testId: string; text: ReactNode };
}) {
  if (rows.length === 0) {
    return (
      <p className="empty" data-testid={empty.testId}>
        {empty.text}
      </p>
    );
  }
  return (
    <div className="table-wrap">
      <table className="table">
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.label} className={c.className}>
                {c.hidden ? <span className="visually-hidden">{c.label}</span> : c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{rows}</tbody>
      </table>
    </div>
  );
}
