/**
 * A run's egress summed per host:port, in words: the tool result the model reads and the tool card the person sees
 * say the same ("api.github.com:443 · 3 requests · 12 KB", "example.com:443 · refused: not granted to
 * github-issues"). Browser-safe and import-free (server/client-boundary.test.ts).
 */
import type { EgressSummaryLine } from './types';

/** 512 B, 12 KB, 3.4 MB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GB`;
}

export function targetText(line: Pick<EgressSummaryLine, 'host' | 'port'>): string {
  return line.host.includes(':') ? `[${line.host}]:${line.port}` : `${line.host}:${line.port}`;
}

/** A refusal's sentence without the target it starts with ("not granted to github-issues"). */
export function refusalText(line: Pick<EgressSummaryLine, 'host' | 'port' | 'reason'>): string {
  const reason = (line.reason ?? 'refused').trim().replace(/\.$/, '');
  const lead = `${targetText(line)} is `;
  return reason.startsWith(lead) ? reason.slice(lead.length) : reason;
}

export function summaryLineText(line: EgressSummaryLine): string {
  if (!line.allowed) return `${targetText(line)} · refused: ${refusalText(line)}`;
  const requests = `${line.requests} ${line.requests === 1 ? 'request' : 'requests'}`;
  return `${targetText(line)} · ${requests} · ${formatBytes(line.bytesIn + line.bytesOut)}`;
}
