'use client';
import type { ReactNode } from 'react';
/**
 * The frame every tool card shares: status, display name, subject (skill) and path in one line, badges, the
 * approval prompt while the call waits for the person, an error or denial line, and the bulky content
 * (instructions, file text) collapsed in a native <details> so a long answer stays scannable. Approval lives here,
 * not in each card, so any tool the server gates gets the same prompt.
 */
import { AlertIcon, BlockIcon, CheckIcon, ChevronIcon, ShieldIcon } from '@/components/icons';
import { ApprovalPrompt, type ApprovalPromptProps } from './approval';
import type { ToolCallStatus, ToolCallView } from './registry';

const STATUS_LABEL: Record<ToolCallStatus, string> = {
  running: 'Running',
  waiting: 'Waiting for your approval',
  done: 'Done',
  error: 'Failed',
  denied: 'Denied',
};

const STATUS_ICON: Record<ToolCallStatus, () => ReactNode> = {
  running: () => <span className="spinner" aria-hidden="true" />,
  waiting: () => <ShieldIcon width={15} height={15} />,
  done: () => <CheckIcon width={15} height={15} />,
  error: () => <AlertIcon width={15} height={15} />,
  denied: () => <BlockIcon width={15} height={15} />,
};

/** How an approved call was approved, for its badge: by the person on this card, or by the server (grant, `/name`). */
function approvalBadge(call: ToolCallView): ReactNode {
  if (call.status !== 'done' || !call.approval?.approved) return null;
  const automatic = call.approval.isAutomatic === true;
  return (
    <Badge testId="badge-approval" title={call.approval.reason}>
      {automatic ? 'pre-approved' : 'approved by you'}
    </Badge>
  );
}

export function Badge({
  children,
  tone = 'neutral',
  testId,
  title,
}: {
  children: ReactNode;
  tone?: 'neutral' | 'warn' | 'danger' | 'ok';
  testId?: string;
  title?: string;
}) {
  return (
    <span className={`badge badge--${tone}`} data-testid={testId} title={title}>
      {children}
    </span>
  );
}

/** Shown when a tool's output was cut at its size limit. */
export function TruncatedBadge({ when }: { when: boolean | undefined }) {
  return when ? (
    <Badge tone="warn" testId="badge-truncated">
      truncated
    </Badge>
  ) : null;
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
  /** What the approval prompt asks and shows, when the call waits for the person. */
  approval?: Omit<ApprovalPromptProps, 'call'>;
}

export function ToolCard({ call, subject, path, badges, children, approval }: ToolCardProps) {
  const Icon = STATUS_ICON[call.status];
  const approved = approvalBadge(call);
  const allBadges =
    badges || approved ? (
      <>
        {approved}
        {badges}
      </>
    ) : null;
  const header = (
    <>
      <span className={`tool-card__status tool-card__status--${call.status}`} title={STATUS_LABEL[call.status]}>
        <Icon />
        <span className="visually-hidden">{STATUS_LABEL[call.status]}</span>
      </span>
      <code className="tool-card__name">{call.displayName}</code>
      {subject ? <span className="tool-card__subject">{subject}</span> : null}
      {path ? (
        <code className="tool-card__path" data-testid="tool-path">
          {path}
        </code>
      ) : null}
      {allBadges ? <span className="tool-card__badges">{allBadges}</span> : null}
    </>
  );

  return (
    <div
      className={`tool-card tool-card--${call.status}`}
      data-testid={`tool-card-${call.displayName}`}
      data-state={call.status}
      data-tool-call-id={call.toolCallId}
      // Focusable by script only: answering an approval moves the focus here (see approval.tsx).
      tabIndex={-1}
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
      <ApprovalPrompt call={call} {...approval} />
      {call.status === 'error' && call.errorText ? (
        <p className="tool-card__error" data-testid="tool-error">
          {call.errorText}
        </p>
      ) : null}
      {call.status === 'denied' ? (
        <p className="tool-card__denied" data-testid="tool-denied">
          {/* The server's reason for a person's "Deny" speaks of "the person"; say it to them directly. */}
          {call.approval?.isAutomatic ? call.errorText : 'You denied this, so it did not run.'}
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
