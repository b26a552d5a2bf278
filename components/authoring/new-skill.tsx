'use client';
/** "New skill" on /admin: a name and a description make a SKILL.md from the template, then the editor opens. */
import { useRouter } from 'next/navigation';
import { type FormEvent, useState } from 'react';

export function NewSkill() {
  const router = useRouter();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const response = await fetch('/api/admin/skills/create', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name, description }),
      });
      const body = (await response.json().catch(() => null)) as { name?: string; error?: string } | null;
      if (!response.ok || !body?.name) {
        setError(body?.error ?? `Could not create the skill (${response.status})`);
        return;
      }
      router.push(`/admin/skills/${encodeURIComponent(body.name)}/edit`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="new-skill" onSubmit={submit} data-testid="new-skill">
      <label>
        Name{' '}
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="meeting-notes"
          required
          data-testid="new-skill-name"
        />
      </label>{' '}
      <label>
        Description{' '}
        <input
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          placeholder="What it does and when to use it"
          data-testid="new-skill-description"
        />
      </label>{' '}
      <button
        type="submit"
        className="button button--primary"
        disabled={busy || !name.trim()}
        data-testid="new-skill-submit"
      >
        New skill
      </button>
      {error ? (
        <p className="authoring__error" role="alert" data-testid="new-skill-error">
          {error}
        </p>
      ) : null}
    </form>
  );
}
