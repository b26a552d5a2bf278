/**
 * /admin's Network section: what each skill declares beside what the operator grants it (hosts, secrets), then the
 * egress record, filtered by person, skill, host and outcome, with an export of what the filters select.
 */
import Link from 'next/link';
import type { AdminEgressEvent, AdminInstalls, AdminNetwork, AdminNetworkSkill } from '@/server/admin/network';
import { formatBytes } from '@/server/egress/summary-line';
import { AdminTable } from './admin-table';
import { LocalTime } from './local-time';

function grantPill(row: { declared: boolean; granted: boolean }) {
  if (row.declared && row.granted) return <span className="pill pill--ok">granted</span>;
  if (row.declared) {
    return (
      <span className="pill pill--warning" title="The skill declares it; the configuration grants it nothing here">
        declared, not granted
      </span>
    );
  }
  return (
    <span className="pill" title="Granted by the configuration; the skill does not declare it">
      granted, not declared
    </span>
  );
}

function status(row: { declared: boolean; granted: boolean }): string {
  return row.declared && row.granted ? 'granted' : row.declared ? 'declared-not-granted' : 'granted-not-declared';
}

function SkillGrants({ skill }: { skill: AdminNetworkSkill }) {
  const asks = skill.permission === 'ask' && skill.hosts.some((h) => h.declared && !h.granted);
  return (
    <tr data-testid="network-skill" data-skill={skill.skill}>
      <td>
        <Link href={`/admin/skills/${encodeURIComponent(skill.skill)}`}>{skill.skill}</Link>
        {skill.permission && (
          <>
            {' '}
            <span className={`pill pill--perm-${skill.permission}`}>{skill.permission}</span>
          </>
        )}
      </td>
      <td>
        {skill.hosts.length === 0 ? (
          <span className="muted">none</span>
        ) : (
          <ul className="plain-list">
            {skill.hosts.map((h) => (
              <li key={h.pattern} data-testid="network-host" data-host={h.pattern} data-status={status(h)}>
                <code>{h.pattern}</code> {grantPill(h)}
              </li>
            ))}
          </ul>
        )}
        {asks && (
          <p className="muted small" data-testid="network-asks">
            Permission <code>ask</code>: its first request to a declared host that is not granted shows an approval
            card.
          </p>
        )}
      </td>
      <td>
        {skill.secrets.length === 0 ? (
          <span className="muted">none</span>
        ) : (
          <ul className="plain-list">
            {skill.secrets.map((s) => (
              <li key={s.name} data-testid="network-secret" data-secret={s.name} data-status={status(s)}>
                <code>{s.name}</code> {grantPill(s)}
                {s.mode && (
                  <span className="muted small"> {s.mode === 'header' ? 'as a header' : 'as a variable'}</span>
                )}
              </li>
            ))}
          </ul>
        )}
      </td>
      <td>
        {skill.problems.length === 0 ? null : (
          <ul className="plain-list small" data-testid="network-problems">
            {skill.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        )}
      </td>
    </tr>
  );
}

function EventRow({ event }: { event: AdminEgressEvent }) {
  return (
    <tr
      data-testid="egress-row"
      data-host={event.host}
      data-port={event.port}
      data-allowed={event.allowed ? 'yes' : 'no'}
      data-code={event.code ?? ''}
    >
      <td className="nowrap">
        <LocalTime ms={event.at} />
      </td>
      <td>{event.person ?? <span className="muted">unknown</span>}</td>
      <td>{event.skills.length > 0 ? event.skills.join(', ') : <span className="muted">none</span>}</td>
      <td>
        <code>
          {event.host.includes(':') ? `[${event.host}]` : event.host}:{event.port}
        </code>
      </td>
      <td data-testid="egress-outcome">
        {event.allowed ? (
          <span className="pill pill--ok">allowed</span>
        ) : (
          <>
            <span className="pill pill--error">refused</span>{' '}
            <span className="small" title={event.code ?? undefined}>
              {event.reason ?? event.code}
            </span>
          </>
        )}
      </td>
      <td className="nowrap num">{event.requests}</td>
      <td className="nowrap num" data-testid="egress-bytes-in">
        {formatBytes(event.bytesIn)}
      </td>
      <td className="nowrap num" data-testid="egress-bytes-out">
        {formatBytes(event.bytesOut)}
      </td>
    </tr>
  );
}

function IndexList({ urls }: { urls: string[] }) {
  return urls.length === 0 ? (
    <span className="muted">none</span>
  ) : (
    <ul className="plain-list">
      {urls.map((u) => (
        <li key={u}>
          <code>{u}</code>
        </li>
      ))}
    </ul>
  );
}

/** `runtime.installs` and the indexes behind it: what a run's `pip install` and `npm install` reach. */
function PackageInstalls({ installs }: { installs: AdminInstalls }) {
  const allowed = installs.mode === 'allow';
  return (
    <div data-testid="network-installs" data-mode={installs.mode}>
      <h3>
        Package installs{' '}
        <span className={allowed ? 'pill pill--ok' : 'pill'} data-testid="network-installs-mode">
          {installs.mode}
        </span>
      </h3>
      <p className="muted small">
        {allowed ? (
          <>
            <code>pip install</code> and <code>npm install</code> in a run reach these indexes and nothing else, GET and
            HEAD only (recorded as <code>(installs)</code>), into a layer of the chat&apos;s own that is deleted with
            it.
          </>
        ) : (
          <>
            <code>runtime.installs</code> is <code>off</code>: an install in a run fails at once. With{' '}
            <code>allow</code>, runs would reach these indexes.
          </>
        )}{' '}
        {installs.source === 'config' ? (
          <>
            From <code>runtime.indexes</code>.
          </>
        ) : (
          <>
            Read from pip&apos;s and npm&apos;s configuration on this server (<code>runtime.indexes</code> replaces it).
          </>
        )}
      </p>
      <div className="table-wrap">
        <table className="table small">
          <tbody>
            <tr>
              <th scope="row">pip index</th>
              <td data-testid="installs-pip-index">
                <code>{installs.pip.index}</code>
              </td>
            </tr>
            <tr>
              <th scope="row">pip extra indexes</th>
              <td data-testid="installs-pip-extra">
                <IndexList urls={installs.pip.extra} />
              </td>
            </tr>
            <tr>
              <th scope="row">pip find-links</th>
              <td data-testid="installs-pip-find-links">
                <IndexList urls={installs.pip.findLinks} />
              </td>
            </tr>
            <tr>
              <th scope="row">npm registry</th>
              <td data-testid="installs-npm">
                <code>{installs.npm}</code>
              </td>
            </tr>
            <tr>
              <th scope="row">Hosts</th>
              <td data-testid="installs-hosts">
                <IndexList urls={installs.hosts} />
              </td>
            </tr>
            <tr>
              <th scope="row">Folders (read-only)</th>
              <td data-testid="installs-folders">
                <IndexList urls={installs.folders} />
              </td>
            </tr>
          </tbody>
        </table>
      </div>
      {installs.problems.length > 0 && (
        <ul className="plain-list small" data-testid="installs-problems">
          {installs.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Links the page builds from the filters (server/admin/network.ts `egressQueryString`). */
export interface NetworkLinks {
  export: string;
  newer: string | null;
  older: string | null;
}

export function NetworkSection({ network, links }: { network: AdminNetwork; links: NetworkLinks }) {
  const { filters, choices } = network;
  const pages = Math.max(1, Math.ceil(network.total / network.pageSize));
  return (
    <section className="card" id="network" aria-labelledby="network-h" data-testid="network">
      <h2 id="network-h">Network</h2>
      <p className="muted small">
        A skill reaches only the hosts <code>network.skills</code> grants it; what it declares in{' '}
        <code>metadata.network</code> and <code>metadata.secrets</code> grants nothing by itself. A shell command gets
        the grants of the chat&apos;s active skills; a skill&apos;s script, its own.
        {network.privateRanges.length > 0 && (
          <span data-testid="network-private"> Private addresses allowed: {network.privateRanges.join(', ')}.</span>
        )}
      </p>
      <div data-testid="network-skills">
        <h3>Declared and granted</h3>
        <AdminTable
          columns={[{ label: 'Skill' }, { label: 'Hosts' }, { label: 'Secrets' }, { label: 'Problems' }]}
          empty={{
            testId: 'no-network-skills',
            text: 'No skill declares a host or a secret, and none is granted one.',
          }}
          rows={network.skills.map((s) => <SkillGrants key={s.skill} skill={s} />)}
        />
        {network.quietSkills > 0 && network.skills.length > 0 && (
          <p className="muted small">
            {network.quietSkills} other {network.quietSkills === 1 ? 'skill declares' : 'skills declare'} nothing and{' '}
            {network.quietSkills === 1 ? 'is' : 'are'} granted nothing.
          </p>
        )}
      </div>

      <PackageInstalls installs={network.installs} />

      <div data-testid="egress-record">
        <h3>
          Egress record{' '}
          <span className="muted small" data-testid="egress-total">
            {network.total} {network.total === 1 ? 'event' : 'events'}
          </span>
        </h3>
        <form method="get" action="/admin#network" className="filters" data-testid="egress-filters">
          <label>
            Person{' '}
            <select name="person" defaultValue={filters.person ?? ''} data-testid="egress-filter-person">
              <option value="">anyone</option>
              {choices.people.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.label}
                </option>
              ))}
            </select>
          </label>{' '}
          <label>
            Skill{' '}
            <select name="skill" defaultValue={filters.skill ?? ''} data-testid="egress-filter-skill">
              <option value="">any</option>
              {choices.skills.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>{' '}
          <label>
            Host{' '}
            <input
              name="host"
              list="egress-hosts"
              defaultValue={filters.host ?? ''}
              placeholder="any"
              size={24}
              data-testid="egress-filter-host"
            />
            <datalist id="egress-hosts">
              {choices.hosts.map((h) => (
                <option key={h} value={h} />
              ))}
            </datalist>
          </label>{' '}
          <label>
            Outcome{' '}
            <select
              name="allowed"
              defaultValue={filters.allowed === undefined ? '' : filters.allowed ? 'yes' : 'no'}
              data-testid="egress-filter-allowed"
            >
              <option value="">any</option>
              <option value="yes">allowed</option>
              <option value="no">refused</option>
            </select>
          </label>{' '}
          <button type="submit" className="button button--outline" data-testid="egress-filter-apply">
            Filter
          </button>{' '}
          <a href={links.export} data-testid="egress-export" download>
            Export JSON
          </a>
        </form>
        <AdminTable
          columns={[
            { label: 'Time' },
            { label: 'Person' },
            { label: 'Skills' },
            { label: 'Host' },
            { label: 'Outcome' },
            { label: 'Requests' },
            { label: 'In' },
            { label: 'Out' },
          ]}
          empty={{ testId: 'no-egress', text: 'No request has gone through a run’s proxy yet under these filters.' }}
          rows={network.events.map((e) => <EventRow key={e.id} event={e} />)}
        />
        {pages > 1 && (
          <p className="small" data-testid="egress-pages">
            Page {filters.page} of {pages}
            {links.newer && (
              <>
                {' · '}
                <a href={links.newer}>newer</a>
              </>
            )}
            {links.older && (
              <>
                {' · '}
                <a href={links.older}>older</a>
              </>
            )}
          </p>
        )}
      </div>
    </section>
  );
}
