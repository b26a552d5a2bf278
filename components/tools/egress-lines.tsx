'use client';
import { summaryLineText } from '@/server/egress/summary-line';
/**
 * A run's way out, as the script and shell cards show it under the output: one line per host:port, what went
 * through ("api.github.com:443 · 3 requests · 12 KB") or why it was refused ("example.com:443 · refused: not
 * granted to github-issues"). The words are the tool result's own (server/egress/summary-line.ts).
 */
import type { EgressSummaryLine } from '@/server/egress/types';

export function EgressLines({ lines }: { lines: EgressSummaryLine[] | undefined }) {
  if (!lines || lines.length === 0) return null;
  return (
    <>
      <span className="tool-card__label">network</span>
      <ul className="tool-card__egress" data-testid="egress-lines">
        {lines.map((line) => (
          <li
            key={`${line.allowed ? 'a' : 'r'} ${line.host} ${line.port}`}
            className={
              line.allowed ? 'tool-card__egress-line' : 'tool-card__egress-line tool-card__egress-line--refused'
            }
            data-testid="egress-line"
            data-host={line.host}
            data-port={line.port}
            data-allowed={line.allowed ? 'yes' : 'no'}
          >
            {summaryLineText(line)}
          </li>
        ))}
      </ul>
    </>
  );
}
