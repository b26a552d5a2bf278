'use client';
/**
 * A skill's mode in the /admin skills table: the mode, where it comes from, and a select that sets it
 * (POST /api/admin/skills/:name/mode; "config default" sends null, which goes back to the config's rule). Then the
 * page re-renders in place (router.refresh) so the catalog section follows. A same-origin fetch, so the browser
 * sends the Origin header the server requires for writes.
 */
import { useRouter } from 'next/navigation';
import { useId, useState, useTransition } from 'react';
import { errorMessageFrom } from '@/components/lib/api';
import type { AdminSkillMode } from '@/server/admin/overview';
import type { SkillMode } from '@/server/config';

/** What each mode does, in the order the select offers them (server/access/modes.ts has the full table). */
const MODE_MEANING: Record<SkillMode, string> = {
  pinned: 'always in the catalog',
  auto: 'in the catalog when it fits',
  search: 'found by search only',
  manual: 'only by /name',
  off: 'invisible',
};
// Written out rather than imported: server/config.ts reads files and cannot ship to the browser.
const MODES = Object.keys(MODE_MEANING) as SkillMode[];

function isMode(value: unknown): value is SkillMode {
  return typeof value === 'string' && value in MODE_MEANING;
}

function sourceText(mode: AdminSkillMode): string {
  if (mode.source === 'override') return 'set on this page';
  if (mode.source === 'config') return `config "${mode.pattern}"`;
  return 'default';
}

export function ModeSelect({ skillName, mode }: { skillName: string; mode: AdminSkillMode }) {
  const router = useRouter();
  const sourceId = useId();
  const fromServer = mode.source === 'override' ? mode.mode : '';
  // What was chosen here and the server's answer, shown until the refreshed page says otherwise.
  const [chosen, setChosen] = useState<string | null>(null);
  const [answer, setAnswer] = useState<SkillMode | null>(null);
  const [seen, setSeen] = useState(`${mode.mode}:${mode.source}`);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [refreshing, startTransition] = useTransition();

  const current = `${mode.mode}:${mode.source}`;
  if (current !== seen) {
    // The page re-rendered with a newer mode (this change, or a rescan): it is the truth now.
    setSeen(current);
    setChosen(null);
    setAnswer(null);
  }

  async function change(value: string) {
    setChosen(value);
    setBusy(true);
    setError(null);
    try {
      const response = await fetch(`/api/admin/skills/${encodeURIComponent(skillName)}/mode`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ mode: value === '' ? null : value }),
      });
      const text = await response.text();
      if (!response.ok) {
        setChosen(null);
        setError(errorMessageFrom(text, `Saving the mode failed (${response.status})`));
        return;
      }
      const body: unknown = JSON.parse(text);
      if (body && typeof body === 'object' && 'mode' in body && isMode(body.mode)) setAnswer(body.mode);
      startTransition(() => router.refresh());
    } catch {
      setChosen(null);
      setError('Saving the mode failed: the server did not answer');
    } finally {
      setBusy(false);
    }
  }

  const working = busy || refreshing;
  const shown = answer ?? mode.mode;
  return (
    <div className="mode" data-testid="skill-mode" data-mode={shown} data-source={mode.source}>
      <select
        className="mode__select"
        value={chosen ?? fromServer}
        onChange={(e) => change(e.target.value)}
        disabled={working}
        aria-busy={working}
        aria-label={`Mode of ${skillName}`}
        aria-describedby={sourceId}
        data-testid="mode-select"
      >
        <option value="">config default: {mode.configMode}</option>
        {MODES.map((m) => (
          <option key={m} value={m}>
            {m}
          </option>
        ))}
      </select>
      <div className="mode__note muted" id={sourceId} data-testid="skill-mode-source">
        {working ? (
          'Saving…'
        ) : (
          <>
            <span className="mode__meaning">
              {MODE_MEANING[shown]}
              {/* The two lines are one sentence to a screen reader, which ignores the line break. */}
              <span className="visually-hidden">, </span>
            </span>
            <span className="mode__source">{sourceText(mode)}</span>
          </>
        )}
      </div>
      {error && (
        <div className="mode__error" role="alert" data-testid="mode-error">
          {error}
        </div>
      )}
    </div>
  );
}
