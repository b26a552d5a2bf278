'use client';
/**
 * Accounts on /admin: the list, a form for a new account, and per account disable/enable, role, a new password
 * and delete, through /api/admin/users. The server refuses what would leave no enabled admin and says why.
 */
import { useRouter } from 'next/navigation';
import { type FormEvent, useState, useTransition } from 'react';
import './users-section.css';

export interface UserRowView {
  id: string;
  email: string;
  name: string;
  role: string;
  disabled: boolean;
  activations: number;
  scriptRuns: number;
  /** Bytes of this person's files across all their chats (workspace quotas). */
  fileBytes?: number;
  /** How many skills of their own they installed on /settings (a count: their contents are theirs). */
  personalSkills?: number;
}

async function send(url: string, method: string, body?: unknown): Promise<string | null> {
  try {
    const response = await fetch(url, {
      method,
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.ok) return null;
    const data = (await response.json().catch(() => null)) as { error?: unknown } | null;
    return typeof data?.error === 'string' ? data.error : `Failed (${response.status})`;
  } catch {
    return 'The server did not answer';
  }
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}

export function UsersSection({
  users,
  me,
  personBytes,
}: {
  users: UserRowView[];
  me: string | null;
  /** Each person's cap over all their chats (workspace.maxPersonBytes). */
  personBytes?: number;
}) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [resetFor, setResetFor] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();

  async function run(url: string, method: string, body?: unknown): Promise<boolean> {
    setError(null);
    const failed = await send(url, method, body);
    if (failed) {
      setError(failed);
      return false;
    }
    startTransition(() => router.refresh());
    return true;
  }
  const userUrl = (email: string) => `/api/admin/users/${encodeURIComponent(email)}`;

  async function onCreate(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = Object.fromEntries(new FormData(form));
    if (await run('/api/admin/users', 'POST', data)) form.reset();
  }

  async function onReset(event: FormEvent<HTMLFormElement>, email: string) {
    event.preventDefault();
    const password = new FormData(event.currentTarget).get('password');
    if (await run(userUrl(email), 'PATCH', { password })) setResetFor(null);
  }

  return (
    <div className="users" data-testid="users-section" aria-busy={pending}>
      <div className="table-wrap">
        <table className="table">
          <thead>
            <tr>
              <th>Email</th>
              <th>Name</th>
              <th>Role</th>
              <th>Status</th>
              <th>Activations</th>
              <th>Script runs</th>
              <th>Files{personBytes ? ` (of ${mib(personBytes)})` : ''}</th>
              <th>Own skills</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <tr key={u.id} data-testid="user-row" data-email={u.email}>
                <td>
                  {u.email}
                  {u.email === me && <span className="muted small"> (you)</span>}
                </td>
                <td>{u.name}</td>
                <td>
                  <select
                    aria-label={`Role of ${u.email}`}
                    value={u.role}
                    onChange={(e) => run(userUrl(u.email), 'PATCH', { role: e.target.value })}
                    data-testid="user-role"
                  >
                    <option value="member">member</option>
                    <option value="admin">admin</option>
                  </select>
                </td>
                <td data-testid="user-status">{u.disabled ? 'disabled' : 'active'}</td>
                <td data-testid="user-activations">{u.activations}</td>
                <td data-testid="user-script-runs">{u.scriptRuns}</td>
                <td data-testid="user-files">{mib(u.fileBytes ?? 0)}</td>
                <td data-testid="user-personal-skills">{u.personalSkills ?? 0}</td>
                <td>
                  <div className="users__actions">
                    <button
                      type="button"
                      className="button button--ghost button--small"
                      onClick={() => run(userUrl(u.email), 'PATCH', { disabled: !u.disabled })}
                      data-testid={u.disabled ? 'user-enable' : 'user-disable'}
                    >
                      {u.disabled ? 'Enable' : 'Disable'}
                    </button>
                    <button
                      type="button"
                      className="button button--ghost button--small"
                      onClick={() => setResetFor(resetFor === u.email ? null : u.email)}
                      data-testid="user-password-reset"
                    >
                      New password
                    </button>
                    <button
                      type="button"
                      className="button button--ghost button--small"
                      onClick={() => {
                        if (window.confirm(`Delete ${u.email} and everything they own?`)) {
                          void run(userUrl(u.email), 'DELETE');
                        }
                      }}
                      data-testid="user-delete"
                    >
                      Delete
                    </button>
                    {resetFor === u.email && (
                      <form className="users__reset" onSubmit={(e) => onReset(e, u.email)}>
                        <input
                          type="password"
                          name="password"
                          minLength={8}
                          required
                          aria-label={`New password for ${u.email}`}
                          autoComplete="new-password"
                          data-testid="user-password-input"
                        />
                        <button type="submit" className="button button--small" data-testid="user-password-save">
                          Set
                        </button>
                      </form>
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {error && (
        <p className="error" role="alert" data-testid="users-error">
          {error}
        </p>
      )}
      <h3>New account</h3>
      <form className="users__create" onSubmit={onCreate}>
        <label className="field">
          <span>Email</span>
          <input type="email" name="email" required autoComplete="off" data-testid="user-create-email" />
        </label>
        <label className="field">
          <span>Name</span>
          <input name="name" autoComplete="off" data-testid="user-create-name" />
        </label>
        <label className="field">
          <span>Password (8+ characters)</span>
          <input
            type="password"
            name="password"
            minLength={8}
            required
            autoComplete="new-password"
            data-testid="user-create-password"
          />
        </label>
        <label className="field">
          <span>Role</span>
          <select name="role" defaultValue="member" data-testid="user-create-role">
            <option value="member">member</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <button type="submit" className="button button--primary" data-testid="user-create-submit">
          Create account
        </button>
      </form>
    </div>
  );
}
