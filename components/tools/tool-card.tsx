'use client';
import type { ReactNode } from 'react';
/**
 * The frame every tool card shares: status, display name, subject (skill) and path in one line, badges, an error
 * line, and the bulky content (instructions, file text) collapsed in a native <details> so a long answer stays
 * scannable.
 */
import { AlertIcon, CheckIcon, ChevronIcon } from '@/components/icons';
import type { ToolCallStatus, ToolCallView } from './registry';

const STATUS_LABEL: Record<ToolCallStatus, string> = { running: 'Running', done: 'Done', error: 'Failed' };

function StatusIcon({ status }: { status: ToolCallStatus }) {
  if (status === 'running') return <span className="spinner" aria-hidden="true" />;
  if (status === 'error') return <AlertIcon width={15} height={15} />;
  return <CheckIcon width={15} height={15} />;
}

export function Badge({
  children,
  tone = 'neutral',
  testId,
}: {
  children: ReactNode;
  tone?: 'neutral' | 'warn';
  testId?: string;
}) {
  return (
    <span className={`badge badge--${tone}`} data-testid={testId}>
      {children}
    </span>
  );
}

interface ToolCardProps {
  call: ToolCallView;
  /** Usually the skill name. */
  subject?: string;
  /** A skill location or a resource path, shown in monospace. */
  path?: string;
  badges?: ReactNode;
  /** Collapsible content; omitted while running or when the call failed. */
  children?: ReactNode;
}

export function ToolCard({ call, subject, path, badges, children }: ToolCardProps) {
  const header = (
    <>
      <span className={`tool-card__status tool-card__status--${call.status}`} title={STATUS_LABEL[call.status]}>
        <StatusIcon status={call.status} />
        <span className="visually-hidden">{STATUS_LABEL[call.status]}</span>
      </span>
      <code className="tool-card__name">{call.displayName}</code>
      {subject ? <span className="tool-card__subject">{subject}</span> : null}
      {path ? (
        <code className="tool-card__path" data-testid="tool-path">
          {path}
        </code>
      ) : null}
      {badges ? <span className="tool-card__badges">{badges}</span> : null}
    </>
  );

  return (
    <div
      className={`tool-card tool-card--${call.status}`}
      data-testid={`tool-card-${call.displayName}`}
      data-state={call.status}
      data-tool-call-id={call.toolCallId}
    >
      {children ? (
        <details className="tool-card__details">
          <summary className="tool-card__header" data-testid="tool-toggle">
            {header}
            <ChevronIcon className="tool-card__chevron" width={14} height={14} />
          </summary>
          <div className="tool-card__body" data-testid="tool-content">
            {children}
          </div>
        </details>
      ) : (
        <div className="tool-card__header">{header}</div>
      )}
      {call.status === 'error' && call.errorText ? (
        <p className="tool-card__error" data-testid="tool-error">
          {call.errorText}
        </p>
      ) : null}
    </div>
  );
}

/** Byte counts as people read them. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
