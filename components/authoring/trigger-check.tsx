'use client';
/**
 * The trigger check on a skill's /admin page: example prompts that should and should not activate the skill, run
 * against the configured model (n runs each) and the matcher. Each run is stored with its date and the hash of the
 * description, so a change to the description can be compared with the runs before it. The prompts of the latest
 * run fill the form.
 */
import { type FormEvent, useState } from 'react';
import type { StoredTriggerCheck } from '@/server/authoring/trigger-admin';

const pct = (value: number | null) => (value === null ? '–' : `${Math.round(value * 100)}%`);
const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

export function TriggerCheck({ name, initial }: { name: string; initial: StoredTriggerCheck[] }) {
  const [checks, setChecks] = useState(initial);
  const latest = checks[0]?.report;
  const [should, setShould] = useState(
    latest?.results
      .filter((r) => r.shouldTrigger)
      .map((r) => r.text)
      .join('\n') ?? '',
  );
  const [shouldNot, setShouldNot] = useState(
    latest?.results
      .filter((r) => !r.shouldTrigger)
      .map((r) => r.text)
      .join('\n') ?? '',
  );
  const [runs, setRuns] = useState(latest?.runs ?? 3);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function run(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const prompts = [
        ...lines(should).map((text) => ({ text, shouldTrigger: true })),
        ...lines(shouldNot).map((text) => ({ text, shouldTrigger: false })),
      ];
      const response = await fetch(`/api/admin/skills/${encodeURIComponent(name)}/trigger-check`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompts, runs }),
      });
      const body = (await response.json().catch(() => null)) as (StoredTriggerCheck & { error?: string }) | null;
      if (!response.ok || !body?.report) {
        setError(body?.error ?? `The check failed (${response.status})`);
        return;
      }
      setChecks((c) => [body, ...c]);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="trigger-check" data-testid="trigger-check">
      <form onSubmit={run} className="trigger-check__form">
        <label>
          Should trigger (one prompt a line)
          <textarea value={should} onChange={(e) => setShould(e.target.value)} rows={4} data-testid="trigger-should" />
        </label>
        <label>
          Should not trigger
          <textarea
            value={shouldNot}
            onChange={(e) => setShouldNot(e.target.value)}
            rows={4}
            data-testid="trigger-should-not"
          />
        </label>
        <label>
          Runs per prompt{' '}
          <input
            type="number"
            min={1}
            max={10}
            value={runs}
            onChange={(e) => setRuns(Number(e.target.value))}
            data-testid="trigger-runs"
          />
        </label>{' '}
        <button type="submit" className="button button--primary" disabled={busy} data-testid="trigger-run">
          {busy ? 'Running…' : 'Run check'}
        </button>
        {error ? (
          <p className="authoring__error" role="alert">
            {error}
          </p>
        ) : null}
      </form>
      {latest ? (
        <table className="admin-table" data-testid="trigger-results">
          <thead>
            <tr>
              <th>Prompt</th>
              <th>Wanted</th>
              <th>Model</th>
              <th>Matcher</th>
            </tr>
          </thead>
          <tbody>
            {latest.results.map((r) => (
              <tr key={`${r.shouldTrigger}:${r.text}`} data-testid="trigger-result">
                <td>{r.text}</td>
                <td>{r.shouldTrigger ? 'trigger' : 'no trigger'}</td>
                <td>
                  {r.modelTriggered}/{r.runs}
                </td>
                <td>{r.matcherTriggered ? 'yes' : 'no'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {checks.length > 0 ? (
        <>
          <h3>Runs</h3>
          <table className="admin-table" data-testid="trigger-history">
            <thead>
              <tr>
                <th>When</th>
                <th>Description</th>
                <th>Model</th>
                <th>Model precision / recall</th>
                <th>Matcher precision / recall</th>
              </tr>
            </thead>
            <tbody>
              {checks.map((c) => (
                <tr key={c.id} data-testid="trigger-run-row">
                  <td>{c.at.replace('T', ' ').slice(0, 19)} UTC</td>
                  <td>
                    <code>{c.descriptionHash}</code>
                  </td>
                  <td>
                    {c.model} ×{c.report.runs}
                  </td>
                  <td data-testid="trigger-model-scores">
                    {pct(c.report.model.precision)} / {pct(c.report.model.recall)}
                  </td>
                  <td>
                    {pct(c.report.matcher.precision)} / {pct(c.report.matcher.recall)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </div>
  );
}
