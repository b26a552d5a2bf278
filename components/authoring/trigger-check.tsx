'use client';
/**
 * Trigger evals on a skill's /admin page: the queries the skill carries (evals/trigger-queries.json) and the ones
 * typed here, run against the configured model (n runs each) and the matcher; each query's rate, whether it met its
 * expectation, and which skill won when this one lost. Every run is stored with the description's and the skill's
 * hash. "Improve the description" shows the model's proposals with their train and validation scores and a diff;
 * Save sends one through the skill editor's own save (PUT skill-file), and nothing changes before that.
 */
import { useRouter } from 'next/navigation';
import { type FormEvent, useState } from 'react';
import type { DescribeReport, SplitScore } from '@/server/evals/describe';
import type { StoredDescribe } from '@/server/evals/describe-admin';
import type { TriggerPrompt } from '@/server/evals/trigger';
import type { StoredTriggerCheck } from '@/server/evals/trigger-admin';

const pct = (value: number | null) => (value === null ? '–' : `${Math.round(value * 100)}%`);
const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

export interface CarriedQueries {
  count: number;
  problems: string[];
}

async function post<T>(
  url: string,
  body: unknown,
  method = 'POST',
): Promise<{ ok: true; body: T } | { ok: false; error: string }> {
  const response = await fetch(url, {
    method,
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const parsed = (await response.json().catch(() => null)) as (T & { message?: string; error?: string }) | null;
  if (!response.ok || parsed === null) {
    return { ok: false, error: parsed?.message ?? parsed?.error ?? `The request failed (${response.status})` };
  }
  return { ok: true, body: parsed };
}

function Score({ s, testId }: { s: SplitScore; testId: string }) {
  return (
    <td data-testid={testId}>
      {s.passed}/{s.total} · P {pct(s.precision)} R {pct(s.recall)}
    </td>
  );
}

function Proposals({ name, report, editable }: { name: string; report: DescribeReport; editable: boolean }) {
  const router = useRouter();
  const [saving, setSaving] = useState<number | null>(null);
  const [message, setMessage] = useState<string | null>(null);

  async function save(index: number) {
    const proposal = report.proposals[index];
    if (!proposal) return;
    setSaving(index);
    setMessage(null);
    try {
      const result = await post(
        `/api/admin/skills/${encodeURIComponent(name)}/skill-file`,
        { text: proposal.skillFile },
        'PUT',
      );
      setMessage(result.ok ? 'Saved: the skill now has this description.' : result.error);
      if (result.ok) router.refresh();
    } finally {
      setSaving(null);
    }
  }

  return (
    <>
      <p className="small muted">
        Scored on {report.split.train} training queries; the {report.split.validation} held-back queries show whether a
        change generalises. Nothing changes until you save one.
      </p>
      {report.problems.map((p) => (
        <p key={p} className="small muted" data-testid="describe-problem">
          {p}
        </p>
      ))}
      <table className="admin-table" data-testid="describe-proposals">
        <thead>
          <tr>
            <th>Description</th>
            <th>Train passed</th>
            <th>Validation passed</th>
            <th />
          </tr>
        </thead>
        <tbody>
          <tr data-testid="describe-current">
            <td>
              <span className="muted small">Current: </span>
              {report.current.description}
            </td>
            <Score s={report.current.train} testId="describe-train" />
            <Score s={report.current.validation} testId="describe-validation" />
            <td />
          </tr>
          {report.proposals.map((p, i) => (
            <tr key={p.description} data-testid="describe-proposal">
              <td className="description-diff" data-testid="describe-diff">
                {p.diff.map((c, j) =>
                  c.op === 'same' ? (
                    // biome-ignore lint/suspicious/noArrayIndexKey: a diff's parts are fixed once computed
                    <span key={j}>{c.text}</span>
                  ) : c.op === 'del' ? (
                    // biome-ignore lint/suspicious/noArrayIndexKey: as above
                    <del key={j}>{c.text}</del>
                  ) : (
                    // biome-ignore lint/suspicious/noArrayIndexKey: as above
                    <ins key={j}>{c.text}</ins>
                  ),
                )}
              </td>
              <Score s={p.train} testId="describe-train" />
              <Score s={p.validation} testId="describe-validation" />
              <td>
                {editable ? (
                  <button
                    type="button"
                    className="button button--outline"
                    disabled={saving !== null}
                    onClick={() => save(i)}
                    data-testid="describe-save"
                  >
                    {saving === i ? 'Saving…' : 'Save'}
                  </button>
                ) : (
                  <span className="small muted">read-only root</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {message ? (
        <p className="small" role="status" data-testid="describe-saved">
          {message}
        </p>
      ) : null}
    </>
  );
}

export function TriggerCheck({
  name,
  initial,
  carried,
  lastDescribe,
  editable,
}: {
  name: string;
  initial: StoredTriggerCheck[];
  carried: CarriedQueries;
  lastDescribe: StoredDescribe | null;
  editable: boolean;
}) {
  const [checks, setChecks] = useState(initial);
  const latest = checks[0]?.report;
  const typedOf = (wanted: boolean) =>
    latest?.results
      .filter((r) => r.from !== 'file' && r.shouldTrigger === wanted)
      .map((r) => r.text)
      .join('\n') ?? '';
  const [should, setShould] = useState(typedOf(true));
  const [shouldNot, setShouldNot] = useState(typedOf(false));
  const [runs, setRuns] = useState(latest?.runs ?? 3);
  const [busy, setBusy] = useState<'evaluate' | 'describe' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [fileProblems, setFileProblems] = useState(carried.problems);
  const [describe, setDescribe] = useState(lastDescribe);

  const typed = (): TriggerPrompt[] => [
    ...lines(should).map((text) => ({ text, shouldTrigger: true })),
    ...lines(shouldNot).map((text) => ({ text, shouldTrigger: false })),
  ];

  async function run(event: FormEvent) {
    event.preventDefault();
    setBusy('evaluate');
    setError(null);
    try {
      const result = await post<StoredTriggerCheck & { fileProblems: string[] }>(
        `/api/admin/skills/${encodeURIComponent(name)}/trigger-check`,
        { prompts: typed(), runs },
      );
      if (!result.ok) return setError(result.error);
      setChecks((c) => [result.body, ...c]);
      setFileProblems(result.body.fileProblems);
    } finally {
      setBusy(null);
    }
  }

  async function improve() {
    setBusy('describe');
    setError(null);
    try {
      const result = await post<StoredDescribe>(`/api/admin/skills/${encodeURIComponent(name)}/describe`, {
        prompts: typed(),
        runs,
      });
      if (!result.ok) return setError(result.error);
      setDescribe(result.body);
    } finally {
      setBusy(null);
    }
  }

  return (
    <div className="trigger-check" data-testid="trigger-check">
      <p className="small" data-testid="trigger-carried">
        {carried.count > 0
          ? `${carried.count} ${carried.count === 1 ? 'query' : 'queries'} from evals/trigger-queries.json, run with the ones typed here.`
          : 'This skill carries no evals/trigger-queries.json: type queries here.'}
      </p>
      {fileProblems.length > 0 ? (
        <ul className="plain-list small" data-testid="trigger-file-problems">
          {fileProblems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
      <form onSubmit={run} className="trigger-check__form">
        <label>
          Should trigger (one query a line)
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
          Runs per query{' '}
          <input
            type="number"
            min={1}
            max={10}
            value={runs}
            onChange={(e) => setRuns(Number(e.target.value))}
            data-testid="trigger-runs"
          />
        </label>{' '}
        <button type="submit" className="button button--primary" disabled={busy !== null} data-testid="trigger-run">
          {busy === 'evaluate' ? 'Running…' : 'Evaluate'}
        </button>{' '}
        <button
          type="button"
          className="button button--outline"
          disabled={busy !== null}
          onClick={improve}
          data-testid="describe-run"
        >
          {busy === 'describe' ? 'Proposing…' : 'Improve the description'}
        </button>
        {error ? (
          <p className="authoring__error" role="alert">
            {error}
          </p>
        ) : null}
      </form>
      {latest ? (
        <>
          <p className="small" data-testid="trigger-summary">
            {latest.results.filter((r) => r.passed).length} of {latest.results.length} queries passed (should trigger:
            rate ≥ {latest.threshold ?? 0.5}; should not: rate ≤ {latest.threshold ?? 0.5}). Model precision{' '}
            {pct(latest.model.precision)}, recall {pct(latest.model.recall)}.
          </p>
          <table className="admin-table" data-testid="trigger-results">
            <thead>
              <tr>
                <th>Query</th>
                <th>Wanted</th>
                <th>Model</th>
                <th>Result</th>
                <th>Activated instead</th>
                <th>Matcher</th>
              </tr>
            </thead>
            <tbody>
              {latest.results.map((r) => (
                <tr key={`${r.shouldTrigger}:${r.text}`} data-testid="trigger-result" data-passed={r.passed}>
                  <td>
                    {r.text}
                    {r.from === 'file' ? <span className="muted small"> (file)</span> : null}
                  </td>
                  <td>{r.shouldTrigger ? 'trigger' : 'no trigger'}</td>
                  <td data-testid="trigger-result-rate">
                    {r.modelTriggered}/{r.runs}
                  </td>
                  <td>{r.passed ? 'pass' : 'FAIL'}</td>
                  <td data-testid="trigger-result-instead">
                    {(r.others ?? []).map((o) => `${o.name ?? 'none'} ${o.runs}/${r.runs}`).join(', ')}
                  </td>
                  <td>{r.matcherTriggered ? 'yes' : 'no'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
      {describe ? (
        <>
          <h3>Proposed descriptions</h3>
          <Proposals name={name} report={describe.report} editable={editable} />
        </>
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
