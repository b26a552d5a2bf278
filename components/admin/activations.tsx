/** The activation log across chats (newest first) and the totals per skill. */

import Link from 'next/link';
import type { AdminActivation, AdminActivationCount } from '@/server/admin/overview';
import { AdminTable } from './admin-table';
import { LocalTime } from './local-time';

export function ActivationLog({ events, total }: { events: AdminActivation[]; total: number }) {
  return (
    <>
      <AdminTable
        columns={[{ label: 'Time' }, { label: 'Skill' }, { label: 'Chat' }, { label: 'How' }]}
        empty={{ testId: 'no-activations', text: 'No skill has been activated yet.' }}
        rows={events.map((e) => (
          <tr key={e.id} data-testid="activation-row" data-skill={e.skillName}>
            <td className="nowrap">
              <LocalTime ms={e.at} />
            </td>
            <td>
              <Link href={`/admin/skills/${encodeURIComponent(e.skillName)}`}>{e.skillName}</Link>
            </td>
            <td>
              <Link href={`/chat/${encodeURIComponent(e.chatId)}`} data-testid="activation-chat-link">
                {e.chatTitle}
              </Link>
            </td>
            <td data-testid="activation-how">
              <span className={`pill pill--${e.how}`}>{e.how === 'explicit' ? 'explicit (/name)' : 'model'}</span>
            </td>
          </tr>
        ))}
      />
      {total > events.length && (
        <p className="muted small">
          Showing the newest {events.length} of {total} activations.
        </p>
      )}
    </>
  );
}

export function ActivationCounts({ counts }: { counts: AdminActivationCount[] }) {
  if (counts.length === 0) return <p className="empty">No activations yet.</p>;
  return (
    <div className="table-wrap">
      <table className="table">
        <thead>
          <tr>
            <th>Skill</th>
            <th className="num">Total</th>
            <th className="num">Explicit</th>
            <th className="num">Model</th>
            <th className="num">Chats</th>
            <th className="num">Last</th>
          </tr>
        </thead>
        <tbody>
          {counts.map((c) => (
            <tr key={c.skillName} data-testid="activation-count-row" data-skill={c.skillName}>
              <td>{c.skillName}</td>
              <td className="num" data-testid="activation-count">
                {c.count}
              </td>
              <td className="num">{c.explicitCount}</td>
              <td className="num">{c.modelCount}</td>
              <td className="num">{c.chatCount}</td>
              <td className="num nowrap">
                <LocalTime ms={c.lastAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
