/** The configured skill roots in precedence order: a skill in an earlier root shadows one of the same name later. */
import type { AdminRoot } from '@/server/admin/overview';
import { ScopeLabel } from './badges';

export function RootsTable({ roots }: { roots: AdminRoot[] }) {
  return (
    <div className="table-wrap">
      <table className="table">
        <thead>
          <tr>
            <th className="num">#</th>
            <th>Root</th>
            <th>Scope</th>
            <th>Status</th>
            <th className="num">Skills</th>
          </tr>
        </thead>
        <tbody>
          {roots.map((root) => (
            <tr key={root.precedence} data-testid="root-row" data-root={root.path} data-exists={root.exists}>
              <td className="num muted">{root.precedence}</td>
              <td>
                <code className="path">{root.path}</code>
              </td>
              <td>
                <ScopeLabel scope={root.scope} />
              </td>
              <td data-testid="root-status">
                {root.exists ? (
                  <span className="pill pill--ok">exists</span>
                ) : (
                  <span className="pill pill--missing">missing</span>
                )}
              </td>
              <td className="num" data-testid="root-skill-count">
                {root.skillCount}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
