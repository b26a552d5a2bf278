/**
 * /admin's Secrets section: each configured secret with the skills that may use it, the hosts it goes to, how it
 * reaches a run (a header the proxy adds, or an environment variable), whether it is shared or each person's own,
 * and where its value comes from. A shared secret with no `${env:NAME}` is set, replaced and cleared here.
 */
import { Delivery } from '@/components/secrets/delivery';
import { SecretValueForm } from '@/components/secrets/secret-value-form';
import type { AdminSecretView } from '@/server/secrets/manage';
import { AdminTable } from './admin-table';
import { LocalTime } from './local-time';
import '@/components/secrets/secrets.css';

function Source({ secret }: { secret: AdminSecretView }) {
  if (secret.source === 'personal') return <span>each person&apos;s own, on /settings</span>;
  if (secret.source === 'environment') {
    return (
      <span className={secret.set ? undefined : 'secret-status--unset'}>
        environment <code>{secret.variable}</code>
        {secret.set ? '' : ': not set'}
      </span>
    );
  }
  if (!secret.set) return <span className="secret-status--unset">not set</span>;
  return (
    <span className={secret.problem ? 'secret-status--problem' : undefined}>
      stored on this server, <LocalTime ms={Date.parse(secret.updatedAt!)} />
      {secret.problem ? `: ${secret.problem}` : ''}
    </span>
  );
}

export function SecretsSection({ secrets }: { secrets: AdminSecretView[] }) {
  return (
    <>
      <p className="muted small">
        Values never reach the model or a browser: a run&apos;s output is redacted. A stored value is encrypted with a
        key from <code>SKILLCHAT_AUTH_SECRET</code>; changing that secret makes stored values unreadable.
      </p>
      <AdminTable
        columns={[
          { label: 'Secret' },
          { label: 'Skills' },
          { label: 'Hosts' },
          { label: 'Reaches the run as' },
          { label: 'Whose' },
          { label: 'Value' },
          { label: 'Change', hidden: true },
        ]}
        empty={{
          testId: 'secrets-empty',
          text: (
            <>
              No secrets configured: add them under <code>secrets</code> in skillchat.config.json.
            </>
          ),
        }}
        rows={secrets.map((s) => (
          <tr key={s.name} data-testid="secret-row" data-secret={s.name} data-source={s.source} data-set={s.set}>
            <td>
              <code>{s.name}</code>
            </td>
            <td>
              {s.skills.map((glob) => (
                <code key={glob} className="secret-skills">
                  {glob}{' '}
                </code>
              ))}
            </td>
            <td>{s.hosts.length > 0 ? s.hosts.join(', ') : <span className="muted">none</span>}</td>
            <td>
              <Delivery delivery={s.delivery} />
            </td>
            <td>{s.personal ? 'personal' : 'shared'}</td>
            <td data-testid="secret-source">
              <Source secret={s} />
            </td>
            <td>
              {s.editable ? (
                <SecretValueForm
                  name={s.name}
                  set={s.set}
                  endpoint={`/api/admin/secrets/${encodeURIComponent(s.name)}`}
                />
              ) : null}
            </td>
          </tr>
        ))}
      />
    </>
  );
}
