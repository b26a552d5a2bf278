/**
 * Everything the scan complained about: each diagnostic with the validator's own message and a hint, the skills
 * that were not loaded and why, and every name collision with the copy that won and the copies it shadows.
 */

import type { AdminCollision, AdminNotLoaded, AdminProblem } from '@/server/admin/overview';
import { AdminTable } from './admin-table';
import { SeverityBadge } from './badges';

export function ProblemsList({ problems }: { problems: AdminProblem[] }) {
  return (
    <AdminTable
      columns={[{ label: 'Severity' }, { label: 'Where' }, { label: 'Problem' }]}
      empty={{ testId: 'no-problems', text: 'No problems: every skill follows the spec.' }}
      rows={problems.map((p, i) => (
        <tr
          // Diagnostics have no id; their order is stable within one scan.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          key={i}
          data-testid="problem-row"
          data-severity={p.severity}
          data-code={p.code}
          data-skill-path={p.skillPath ?? ''}
        >
          <td>
            <SeverityBadge severity={p.severity} />
          </td>
          <td className="where">
            {p.skillPath !== null ? (
              <>
                <code className="path" data-testid="problem-path">
                  {p.skillPath || '.'}
                </code>
                {p.root && <span className="muted small"> in {p.root}</span>}
              </>
            ) : (
              <code className="path">{p.root ?? '—'}</code>
            )}
          </td>
          <td>
            <div className="message" data-testid="problem-message">
              {p.message}
            </div>
            <div className="muted small">
              <code>{p.code}</code>
              {p.hint && (
                <span data-testid="problem-hint">
                  {' · '}
                  {p.hint}
                </span>
              )}
            </div>
          </td>
        </tr>
      ))}
    />
  );
}

export function NotLoadedList({ items }: { items: AdminNotLoaded[] }) {
  if (items.length === 0) return <p className="empty">Every skill folder found was loaded.</p>;
  return (
    <ul className="plain-list">
      {items.map((item) => (
        <li key={item.location} data-testid="not-loaded-row" data-skill={item.name}>
          <code className="path">{item.location}</code>
          <ul className="reasons">
            {item.reasons.map((reason) => (
              <li key={reason}>{reason}</li>
            ))}
          </ul>
        </li>
      ))}
    </ul>
  );
}

export function CollisionsList({ collisions }: { collisions: AdminCollision[] }) {
  if (collisions.length === 0) return <p className="empty">No two skills share a name.</p>;
  return (
    <ul className="plain-list">
      {collisions.map((c) => (
        <li key={c.name} data-testid="collision-row" data-skill={c.name}>
          <strong>{c.name}</strong>
          <div className="collision">
            <span className="pill pill--ok">loaded</span>{' '}
            <code className="path" data-testid="collision-winner">
              {c.winner}
            </code>
          </div>
          {c.shadowed.map((s) => (
            <div key={s} className="collision">
              <span className="pill pill--missing">shadowed</span>{' '}
              <code className="path" data-testid="collision-shadowed">
                {s}
              </code>
            </div>
          ))}
        </li>
      ))}
    </ul>
  );
}
