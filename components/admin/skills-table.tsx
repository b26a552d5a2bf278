'use client';
/**
 * Every skill the scan found, loaded or not, with a text filter and sortable columns, and each loaded skill's mode
 * (set from here). Sorting and filtering happen in the browser: a skill set is tens to hundreds of rows, already on
 * the page.
 */
import Link from 'next/link';
import { useMemo, useState } from 'react';
import type { AdminSkillRow, SkillStatus } from '@/server/admin/overview';
import type { Permission, SkillMode } from '@/server/config';
import { PermissionBadge, ScopeLabel, StatusBadge } from './badges';
import { LocalTime } from './local-time';
import { ModeSelect } from './mode-select';
import './skills-table.css';

type SortKey =
  | 'name'
  | 'root'
  | 'status'
  | 'mode'
  | 'permission'
  | 'catalogTokens'
  | 'activationCount'
  | 'lastActivatedAt';

const COLUMNS: Array<{ key: SortKey; label: string; numeric?: boolean; title?: string }> = [
  { key: 'name', label: 'Skill' },
  { key: 'root', label: 'Source' },
  { key: 'status', label: 'Status' },
  { key: 'mode', label: 'Mode' },
  { key: 'permission', label: 'Permission' },
  // Short, so the table with its Mode column still fits a laptop screen; the title says what is counted.
  { key: 'catalogTokens', label: 'Tokens', numeric: true, title: "Tokens of the skill's entry in the catalog" },
  { key: 'activationCount', label: 'Activations', numeric: true },
  { key: 'lastActivatedAt', label: 'Last activated', numeric: true },
];

const STATUS_ORDER: Record<SkillStatus, number> = { 'not-loaded': 0, warnings: 1, ok: 2 };
/** Most restrictive first; a skill that was not loaded has no permission and sorts last. */
const PERMISSION_ORDER: Record<Permission, number> = { deny: 0, ask: 1, allow: 2 };
/** Most visible first; a skill that was not loaded has no mode and sorts last. */
const MODE_ORDER: Record<SkillMode, number> = { pinned: 0, auto: 1, search: 2, manual: 3, off: 4 };

function permissionRank(row: AdminSkillRow): number {
  return row.permission ? PERMISSION_ORDER[row.permission.permission] : 3;
}

function compare(a: AdminSkillRow, b: AdminSkillRow, key: SortKey): number {
  switch (key) {
    case 'name':
    case 'root':
      return a[key].localeCompare(b[key]);
    case 'status':
      return STATUS_ORDER[a.status] - STATUS_ORDER[b.status];
    case 'mode':
      return (a.mode ? MODE_ORDER[a.mode.mode] : 5) - (b.mode ? MODE_ORDER[b.mode.mode] : 5);
    case 'permission':
      return permissionRank(a) - permissionRank(b);
    default:
      // Missing values (not loaded, never activated) sort as the smallest.
      return (a[key] ?? -1) - (b[key] ?? -1);
  }
}

/** A path that may wrap after its slashes (and nowhere else), so a long root does not widen the whole table. */
function breakablePath(p: string) {
  return p.split('/').map((part, i, parts) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string, never reordered.
    <span key={i}>
      {part}
      {i < parts.length - 1 && (
        <>
          /<wbr />
        </>
      )}
    </span>
  ));
}

export function SkillsTable({ rows }: { rows: AdminSkillRow[] }) {
  const [query, setQuery] = useState('');
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({ key: 'name', descending: false });

  const visible = useMemo(() => {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const filtered = rows.filter((row) => {
      const permission = row.permission?.permission ?? '';
      const mode = row.mode?.mode ?? '';
      const haystack =
        `${row.name} ${row.description} ${row.location} ${row.scope} ${row.status} ${mode} ${permission}`.toLowerCase();
      return words.every((w) => haystack.includes(w));
    });
    return filtered.sort((a, b) => {
      const order = compare(a, b, sort.key) || a.name.localeCompare(b.name);
      return sort.descending ? -order : order;
    });
  }, [rows, query, sort]);

  function toggle(key: SortKey, numeric: boolean | undefined) {
    setSort((current) =>
      // Numbers start with the largest: "most activated" is the usual question.
      current.key === key ? { key, descending: !current.descending } : { key, descending: Boolean(numeric) },
    );
  }

  return (
    <div className="skills-table">
      <div className="toolbar">
        <label className="filter">
          <span className="visually-hidden">Filter skills</span>
          <input
            type="search"
            placeholder="Filter by name, description, mode, permission…"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            data-testid="skills-filter"
          />
        </label>
        <span className="muted" data-testid="skills-shown">
          {visible.length === rows.length ? `${rows.length} skills` : `${visible.length} of ${rows.length} skills`}
        </span>
      </div>
      <div className="table-wrap">
        <table className="table">
          <thead>
            <tr>
              {COLUMNS.map((col) => {
                const active = sort.key === col.key;
                return (
                  <th
                    key={col.key}
                    className={col.numeric ? 'num' : undefined}
                    aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : 'none'}
                  >
                    <button
                      type="button"
                      className="sort"
                      onClick={() => toggle(col.key, col.numeric)}
                      title={col.title}
                      data-testid={`sort-${col.key}`}
                    >
                      {col.label}
                      <span className="sort__arrow" aria-hidden>
                        {active ? (sort.descending ? '▾' : '▴') : ''}
                      </span>
                    </button>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {visible.map((row) => (
              <tr key={`${row.status}:${row.location}`} data-testid="skill-row" data-skill={row.name}>
                <td className="skill-cell">
                  {row.status === 'not-loaded' ? (
                    <span className="skill-cell__name">{row.name}</span>
                  ) : (
                    <Link
                      className="skill-cell__name"
                      href={`/admin/skills/${encodeURIComponent(row.name)}`}
                      data-testid="skill-link"
                    >
                      {row.name}
                    </Link>
                  )}
                  <span className="skill-cell__description">
                    {row.description || <em>Not loaded: see Problems.</em>}
                  </span>
                </td>
                <td className="source" title={row.location} data-testid="skill-source">
                  <code className="path">{breakablePath(row.root)}</code>
                  <ScopeLabel scope={row.scope} />
                  {/* The folder is only worth a line when its name is not the skill's. */}
                  {row.relDir !== row.name && <div className="muted small">in {row.relDir}</div>}
                </td>
                <td>
                  <StatusBadge status={row.status} testId="skill-status" />
                  {row.problemCount > 0 && (
                    <span className="muted small">
                      {' '}
                      {row.problemCount} {row.problemCount === 1 ? 'problem' : 'problems'}
                    </span>
                  )}
                </td>
                <td className="mode-cell">
                  {row.mode ? <ModeSelect skillName={row.name} mode={row.mode} /> : <span className="muted">—</span>}
                </td>
                <td
                  className="permission"
                  data-testid="skill-permission"
                  data-permission={row.permission?.permission ?? ''}
                >
                  {row.permission ? (
                    <>
                      <PermissionBadge permission={row.permission.permission} />
                      <div className="permission__reason muted">{row.permission.reason}</div>
                    </>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td className="num" data-testid="skill-tokens" data-in-catalog={row.inCatalog}>
                  {row.catalogTokens === null ? (
                    '—'
                  ) : row.inCatalog ? (
                    row.catalogTokens
                  ) : (
                    // Its size still matters to the operator deciding whether to list it; the model pays nothing.
                    <>
                      <span className="muted">{row.catalogTokens}</span>
                      <div className="muted small">not listed</div>
                    </>
                  )}
                </td>
                <td className="num" data-testid="skill-activations">
                  {row.activationCount}
                </td>
                <td className="num" data-testid="skill-last-activated">
                  {row.lastActivatedAt ? <LocalTime ms={row.lastActivatedAt} /> : <span className="muted">never</span>}
                </td>
              </tr>
            ))}
            {visible.length === 0 && (
              <tr>
                <td colSpan={COLUMNS.length} className="empty">
                  {rows.length === 0 ? 'No skills found in any root.' : 'No skill matches the filter.'}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}
