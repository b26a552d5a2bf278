'use client';
/**
 * Output evals on a skill's /admin page: the cases of the skill's `evals/evals.json` run in scratch chats with the
 * skill and without it (and the last run of an earlier version beside them), side by side per case. The run goes on
 * on the server; the page polls it while it runs, and Stop ends it. A failed run's chat is one click away.
 */
import Link from 'next/link';
import { useCallback, useEffect, useState } from 'react';
import type { ArmSummary, OutputEvalReport } from '@/server/evals/output';
import type { StoredOutputEval } from '@/server/evals/output-runs';

const ARM_LABELS = { with: 'With the skill', without: 'Without the skill', earlier: 'Earlier version' } as const;
const pct = (a: { passed: number; total: number }) =>
  a.total === 0 ? '–' : `${Math.round((100 * a.passed) / a.total)}%`;

function Cell({ arm, caseId, kind }: { arm: ArmSummary | undefined; caseId: string; kind: string }) {
  const s = arm?.cases.find((c) => c.id === caseId);
  if (!s || s.total === 0) return <td className="muted">–</td>;
  const verdict = s.passed === s.total ? 'pass' : s.passed === 0 ? 'fail' : 'mixed';
  return (
    <td data-testid="output-eval-cell" data-case={caseId} data-arm={kind} data-verdict={verdict}>
      {s.passed}/{s.total} {verdict === 'pass' ? '✓' : verdict === 'fail' ? '✗' : '~'}
    </td>
  );
}

function Report({ report }: { report: OutputEvalReport }) {
  const withArm = report.arms.find((a) => a.arm === 'with');
  const withoutArm = report.arms.find((a) => a.arm === 'without');
  const earlier = report.earlier?.arm;
  const failed = report.runs.filter((r) => !r.passed);
  return (
    <>
      <table className="admin-table" data-testid="output-evals-table">
        <thead>
          <tr>
            <th>Case</th>
            <th>{ARM_LABELS.with}</th>
            <th>{ARM_LABELS.without}</th>
            {earlier ? <th title={report.earlier?.contentHash}>{ARM_LABELS.earlier}</th> : null}
          </tr>
        </thead>
        <tbody>
          {report.cases.map((c) => (
            <tr key={c.id}>
              <td title={c.prompt}>
                <code>{c.id}</code>
              </td>
              <Cell arm={withArm} caseId={c.id} kind="with" />
              <Cell arm={withoutArm} caseId={c.id} kind="without" />
              {earlier ? <Cell arm={earlier} caseId={c.id} kind="earlier" /> : null}
            </tr>
          ))}
          <tr data-testid="output-evals-overall">
            <th>Overall</th>
            {[withArm, withoutArm, ...(earlier ? [earlier] : [])].map((a, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed
              <td key={i}>{a ? `${a.passed}/${a.total} (${pct(a)})` : '–'}</td>
            ))}
          </tr>
          <tr>
            <th>Time, tokens</th>
            {[withArm, withoutArm, ...(earlier ? [earlier] : [])].map((a, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed
              <td key={i} className="small">
                {a ? `${(a.durationMs / 1000).toFixed(1)} s · ${a.tokens}` : '–'}
              </td>
            ))}
          </tr>
        </tbody>
      </table>
      {failed.length > 0 ? (
        <ul className="plain-list small" data-testid="output-evals-failed">
          {failed.map((r) => (
            <li key={`${r.arm}:${r.caseId}:${r.run}`}>
              <code>{r.caseId}</code> {ARM_LABELS[r.arm].toLowerCase()}, run {r.run}:{' '}
              {r.checks
                .filter((c) => !c.passed)
                .map((c) => c.detail)
                .join('; ')}
              {r.chatId ? (
                <>
                  {' '}
                  <Link href={`/chat/${r.chatId}`} data-testid="output-evals-transcript">
                    transcript
                  </Link>
                </>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {report.problems.length > 0 ? (
        <ul className="plain-list small" data-testid="output-evals-problems">
          {report.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
    </>
  );
}

export function OutputEvals({ name, initial }: { name: string; initial: StoredOutputEval[] }) {
  const [runs, setRuns] = useState(initial);
  const [count, setCount] = useState(1);
  const [error, setError] = useState<string | null>(null);
  const url = `/api/admin/skills/${encodeURIComponent(name)}/output-evals`;
  const latest = runs[0];
  const running = latest?.status === 'running';

  const refresh = useCallback(async () => {
    const response = await fetch(url, { credentials: 'same-origin' });
    const body = (await response.json().catch(() => null)) as { runs?: StoredOutputEval[] } | null;
    if (response.ok && body?.runs) setRuns(body.runs);
  }, [url]);

  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => void refresh(), 1000);
    return () => clearInterval(timer);
  }, [running, refresh]);

  async function send(method: 'POST' | 'DELETE') {
    setError(null);
    const response = await fetch(url, {
      method,
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      ...(method === 'POST' ? { body: JSON.stringify({ runs: count }) } : {}),
    });
    if (!response.ok) {
      const body = (await response.json().catch(() => null)) as { error?: string } | null;
      setError(body?.error ?? `The request failed (${response.status})`);
    }
    await refresh();
  }

  return (
    <div className="output-evals" data-testid="output-evals">
      <p className="trigger-check__form">
        <label>
          Runs per case{' '}
          <input
            type="number"
            min={1}
            max={10}
            value={count}
            onChange={(e) => setCount(Number(e.target.value))}
            data-testid="output-evals-runs"
          />
        </label>{' '}
        {running ? (
          <button type="button" className="button" onClick={() => void send('DELETE')} data-testid="output-evals-stop">
            Stop
          </button>
        ) : (
          <button
            type="button"
            className="button button--primary"
            onClick={() => void send('POST')}
            data-testid="output-evals-run"
          >
            Run output evals
          </button>
        )}
      </p>
      {error ? (
        <p className="authoring__error" role="alert">
          {error}
        </p>
      ) : null}
      {latest ? (
        <>
          <p className="small" data-testid="output-evals-status" data-status={latest.status}>
            {latest.status === 'running'
              ? `Running… ${latest.report.runs.length} of ${latest.report.cases.length * latest.report.runsPerCase * 2} runs done`
              : `${latest.status === 'done' ? 'Finished' : latest.status === 'stopped' ? 'Stopped' : 'Failed'} ${latest.startedAt.replace('T', ' ').slice(0, 19)} UTC`}{' '}
            · {latest.model} · version <code>{latest.contentHash.slice(0, 12)}</code>
          </p>
          <Report report={latest.report} />
        </>
      ) : (
        <p className="empty">No runs yet.</p>
      )}
    </div>
  );
}
