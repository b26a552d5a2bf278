/** The person's own secrets on /settings: each personal secret, set or not (and when), with its value form. */
import { LocalTime } from '@/components/admin/local-time';
import { Delivery } from '@/components/secrets/delivery';
import { SecretValueForm } from '@/components/secrets/secret-value-form';
import type { PersonalSecretView } from '@/server/secrets/manage';
import '@/components/secrets/secrets.css';

export function PersonalSecrets({ secrets }: { secrets: PersonalSecretView[] }) {
  if (secrets.length === 0) {
    return (
      <p className="secret-list__meta" data-testid="personal-secrets-empty">
        No skill here needs a secret of yours.
      </p>
    );
  }
  return (
    <ul className="secret-list" aria-labelledby="your-secrets-h" data-testid="personal-secrets">
      {secrets.map((s) => (
        <li key={s.name} data-testid="personal-secret" data-secret={s.name} data-set={s.set}>
          <span>
            <code>{s.name}</code>{' '}
            <span
              className={s.problem ? 'secret-status--problem' : s.set ? undefined : 'secret-status--unset'}
              data-testid="personal-secret-status"
            >
              {s.set ? (
                <>
                  set, updated <LocalTime ms={Date.parse(s.updatedAt!)} />
                </>
              ) : (
                'not set'
              )}
              {s.problem ? `: ${s.problem}` : ''}
            </span>
          </span>
          <span className="secret-list__meta">
            For {s.skills.join(', ')}
            {s.hosts.length > 0 ? ` at ${s.hosts.join(', ')}` : ''} · <Delivery delivery={s.delivery} />
          </span>
          <SecretValueForm name={s.name} set={s.set} endpoint={`/api/me/secrets/${encodeURIComponent(s.name)}`} />
        </li>
      ))}
    </ul>
  );
}
