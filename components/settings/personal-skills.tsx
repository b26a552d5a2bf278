'use client';
/**
 * The person's own skills on /settings: the list, Remove, and the install form (an archive or a folder) the admin
 * uses, sent to /api/me/personal-skills. Only this person sees and uses them; the server re-reads the list after a
 * change (router.refresh), so the list is always the folder's.
 */
import { useRouter } from 'next/navigation';
import { useState, useTransition } from 'react';
import { InstallSkill } from '@/components/admin/install-skill';
import { errorMessageFrom } from '@/components/lib/api';
import type { PersonalSkillView } from '@/server/install/personal';

export function PersonalSkills({ skills, enabled }: { skills: PersonalSkillView[]; enabled: boolean }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();

  async function remove(name: string) {
    setError(null);
    const response = await fetch(`/api/me/personal-skills/${encodeURIComponent(name)}`, { method: 'DELETE' });
    if (response.ok) startTransition(() => router.refresh());
    else setError(errorMessageFrom(await response.text(), `The server refused (${response.status}).`));
  }

  if (!enabled) {
    return (
      <p className="muted small" data-testid="personal-skills-off">
        The operator turned personal skills off on this server.
      </p>
    );
  }
  return (
    <div data-testid="personal-skills">
      {skills.length === 0 ? (
        <p className="muted small" data-testid="no-personal-skills">
          None yet. Upload a skill&apos;s folder (with its SKILL.md) or a .zip of it.
        </p>
      ) : (
        <ul className="token-list">
          {skills.map((s) => (
            <li key={s.name} data-testid="personal-skill" data-name={s.name}>
              <span>
                <code>/{s.name}</code> <span className="muted small">{s.description}</span>
                {s.hiddenByShared && (
                  <span className="muted small" data-testid="personal-skill-hidden">
                    {' '}
                    (not used: a shared skill now has this name; rename yours)
                  </span>
                )}
              </span>
              <button
                type="button"
                className="button button--outline button--small"
                onClick={() => void remove(s.name)}
                disabled={pending}
                data-testid="personal-skill-remove"
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      {error ? (
        <p className="auth-error" role="alert">
          {error}
        </p>
      ) : null}
      <InstallSkill endpoint="/api/me/personal-skills" urls={false} />
    </div>
  );
}
