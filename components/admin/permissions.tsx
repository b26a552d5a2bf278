/**
 * The permissions part of /admin: the "always allow" grants in force (each tied to the content it was given for),
 * the answers people gave to approval prompts, and the log of sandboxed script runs.
 */

import Link from 'next/link';
import { commandLine, formatDuration } from '@/components/lib/format';
import type { AdminDecision, AdminGrant, AdminScriptRun } from '@/server/admin/overview';
import { AdminTable } from './admin-table';
import { DecisionBadge } from './badges';
import { LocalTime } from './local-time';
import { RevokeButton } from './revoke-button';

/** Enough of a SHA-256 to tell grants apart at a glance; the full hash is in the tooltip. */
const SHORT_HASH = 12;

function SkillLink({ name }: { name: string }) {
  // MCP tools share the grants and decisions tables under `mcp:<label>/<tool>` (server/mcp/tools.ts): no skill page.
  if (name.startsWith('mcp:')) return <code>{name}</code>;
  return <Link href={`/admin/skills/${encodeURIComponent(name)}`}>{name}</Link>;
}

function ChatLink({ chatId, chatTitle }: { chatId: string | null; chatTitle: string | null }) {
  if (chatId === null || chatTitle === null) return <span className="muted">deleted chat</span>;
  return (
    <Link href={`/chat/${encodeURIComponent(chatId)}`} data-testid="chat-link">
      {chatTitle}
    </Link>
  );
}

export function GrantsTable({ grants, people }: { grants: AdminGrant[]; people?: ReadonlyMap<string, string> }) {
  return (
    <AdminTable
      columns={[{ label: 'Skill' }, { label: 'Content' }, { label: 'Granted' }, { label: 'Actions', hidden: true }]}
      empty={{
        testId: 'no-grants',
        text: (
          <>
            No skill is always allowed: skills under <code>ask</code> ask in every chat.
          </>
        ),
      }}
      rows={grants.map((g) => (
        <tr key={g.id} data-testid="grant-row" data-skill={g.skillName} data-grant-id={g.id}>
          <td>
            {g.kind === 'shell-prefix' ? (
              <>
                <code data-testid="grant-command">{g.skillName}</code>{' '}
                <span className="muted small" data-testid="grant-person">
                  for {g.userId === null ? 'everyone' : (people?.get(g.userId) ?? g.userId)}
                </span>
              </>
            ) : (
              <SkillLink name={g.skillName} />
            )}
          </td>
          <td>
            <code className="hash" title={g.contentHash} data-testid="grant-hash">
              {g.contentHash.slice(0, SHORT_HASH)}
            </code>{' '}
            {g.current === true ? (
              <span className="pill pill--ok" title="The skill's SKILL.md and scripts are unchanged since the grant">
                current
              </span>
            ) : g.current === false ? (
              <span className="pill pill--warning" title="SKILL.md or a script changed: the skill asks again">
                outdated
              </span>
            ) : g.kind === 'shell-prefix' ? (
              <span className="pill" title="A person's standing grant: commands starting with these words">
                commands
              </span>
            ) : g.skillName.startsWith('mcp:') ? (
              <span
                className="pill"
                title="Holds while the MCP tool's name, description and input schema are unchanged"
              >
                MCP tool
              </span>
            ) : (
              <span className="pill" title="No skill of this name is loaded now">
                not loaded
              </span>
            )}
          </td>
          <td className="nowrap">
            <LocalTime ms={g.grantedAt} />
          </td>
          <td className="actions">
            <RevokeButton grantId={g.id} skillName={g.skillName} />
          </td>
        </tr>
      ))}
    />
  );
}

export function DecisionLog({ decisions }: { decisions: AdminDecision[] }) {
  return (
    <AdminTable
      columns={[{ label: 'Time' }, { label: 'Skill' }, { label: 'Decision' }, { label: 'Chat' }]}
      empty={{ testId: 'no-decisions', text: 'Nobody has answered an approval prompt yet.' }}
      rows={decisions.map((d) => (
        <tr key={d.id} data-testid="decision-row" data-skill={d.skillName} data-decision={d.decision}>
          <td className="nowrap">
            <LocalTime ms={d.at} />
          </td>
          <td>
            <SkillLink name={d.skillName} />
          </td>
          <td>
            <DecisionBadge decision={d.decision} />
          </td>
          <td>
            <ChatLink chatId={d.chatId} chatTitle={d.chatTitle} />
          </td>
        </tr>
      ))}
    />
  );
}

export function ScriptRunLog({ runs, people }: { runs: AdminScriptRun[]; people?: ReadonlyMap<string, string> }) {
  return (
    <AdminTable
      columns={[
        { label: 'Time' },
        ...(people ? [{ label: 'Person' }] : []),
        { label: 'Skill' },
        { label: 'What ran' },
        { label: 'Exit', className: 'num' },
        { label: 'Duration', className: 'num' },
        { label: 'Chat' },
      ]}
      empty={{ testId: 'no-script-runs', text: 'Nothing has run yet: no script and no shell command.' }}
      rows={runs.map((r) => (
        <tr key={r.id} data-testid="script-run-row" data-kind={r.kind} data-skill={r.skillName} data-script={r.script}>
          <td className="nowrap">
            <LocalTime ms={r.at} />
          </td>
          {people ? (
            <td data-testid="script-run-person">{r.userId === null ? '—' : (people.get(r.userId) ?? r.userId)}</td>
          ) : null}
          <td>
            {r.skillName
              .split(' ')
              .filter(Boolean)
              .map((name, i) => (
                <span key={name}>
                  {i > 0 ? ', ' : null}
                  <SkillLink name={name} />
                </span>
              ))}
            {r.skillName === '' ? '—' : null}
          </td>
          <td>
            {r.kind === 'command' ? <span className="pill">command</span> : null}{' '}
            <code className="path" data-testid="script-run-command">
              {r.kind === 'command' ? r.script : commandLine(r.script, r.args)}
            </code>
          </td>
          <td className="num" data-testid="script-run-exit">
            {r.timedOut ? (
              <span className="pill pill--warning">timed out</span>
            ) : r.exitCode === null ? (
              <span className="pill pill--error">stopped</span>
            ) : (
              <span className={`pill ${r.exitCode === 0 ? 'pill--ok' : 'pill--error'}`}>{r.exitCode}</span>
            )}
          </td>
          <td className="num nowrap" data-testid="script-run-duration">
            {formatDuration(r.durationMs)}
          </td>
          <td>
            <ChatLink chatId={r.chatId} chatTitle={r.chatTitle} />
          </td>
        </tr>
      ))}
    />
  );
}
