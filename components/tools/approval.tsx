'use client';
/**
 * The approval prompt on a tool card: the server's reason for asking and Allow / Always allow / Deny. The card only
 * records the answer through the chat's `ApprovalActions` (from context, so cards stay plain registered renderers);
 * the chat sends it. Answering moves the focus to the card itself, which stays while the buttons go away, so a
 * keyboard user is not dropped at the top of the page; the status line that replaces the buttons is announced.
 */
import { createContext, type ReactNode, useContext, useId, useRef } from 'react';
import type { ToolCallView } from './registry';

export interface ApprovalActions {
  /** Records the person's answer to one approval; `always` asks the server to store a grant. */
  answer(approvalId: string, approved: boolean, always: boolean): void;
  /** True while the chat is sending or receiving: answers wait until the current answer has ended. */
  busy: boolean;
  /** Whether the person chose "Always allow" for this approval in this page (the SDK's part does not say). */
  isAlways(approvalId: string): boolean;
}

const ApprovalContext = createContext<ApprovalActions | null>(null);

export const ApprovalProvider = ApprovalContext.Provider;

export interface ApprovalPromptProps {
  call: ToolCallView;
  /** The question, e.g. "Load the skill pdf?"; a generic one otherwise. */
  question?: ReactNode;
  /** Extra facts for the decision (allowed-tools, what "always" means). */
  details?: ReactNode;
  /** Offer "Always allow" (a grant tied to a skill's content); false where nothing could be granted. */
  allowAlways?: boolean;
  /** The "Always allow" button's words where they say more than that (what a standing grant covers). */
  alwaysLabel?: ReactNode;
}

/** Renders for `approval-requested` (the buttons) and `approval-responded` (the answer, continuing). */
export function ApprovalPrompt({ call, question, details, allowAlways = true, alwaysLabel }: ApprovalPromptProps) {
  const actions = useContext(ApprovalContext);
  const reasonId = useId();
  const promptRef = useRef<HTMLFieldSetElement>(null);
  const approval = call.approval;

  if (!approval) return null;

  if (call.state === 'approval-responded') {
    const always = approval.approved && actions?.isAlways(approval.id);
    return (
      <p
        className={`approval-status approval-status--${approval.approved ? 'allowed' : 'denied'}`}
        role="status"
        data-testid="approval-status"
      >
        {approval.approved ? (always ? 'Always allowed' : 'Allowed') : 'Denied'}, continuing…
      </p>
    );
  }
  if (call.state !== 'approval-requested') return null;

  const answer = (approved: boolean, always: boolean) => {
    if (!actions) return;
    promptRef.current?.closest<HTMLElement>('[data-tool-call-id]')?.focus();
    actions.answer(approval.id, approved, always);
  };
  const disabled = !actions || actions.busy;

  return (
    <fieldset
      ref={promptRef}
      className="approval"
      aria-describedby={approval.requestReason ? reasonId : undefined}
      data-testid="approval-prompt"
      data-approval-id={approval.id}
    >
      <legend className="approval__question">{question ?? 'Allow this tool call?'}</legend>
      {approval.requestReason ? (
        <div id={reasonId}>
          <p className="approval__reason" data-testid="approval-reason">
            {approval.requestReason.split('\n')[0]}
          </p>
          {/* The server puts each warning (hidden text in the skill) on a line of its own, after the reason. */}
          {approval.requestReason
            .split('\n')
            .slice(1)
            .map((line) => (
              <p key={line} className="approval__warning" role="note" data-testid="approval-warning">
                {line}
              </p>
            ))}
        </div>
      ) : null}
      {details}
      <div className="approval__actions">
        <button
          type="button"
          className="button button--primary"
          onClick={() => answer(true, false)}
          disabled={disabled}
          data-testid="approval-allow"
        >
          Allow
        </button>
        {allowAlways ? (
          <button
            type="button"
            className="button button--outline"
            onClick={() => answer(true, true)}
            disabled={disabled}
            data-testid="approval-always"
          >
            {alwaysLabel ?? 'Always allow'}
          </button>
        ) : null}
        <button
          type="button"
          className="button button--outline button--deny"
          onClick={() => answer(false, false)}
          disabled={disabled}
          data-testid="approval-deny"
        >
          Deny
        </button>
      </div>
    </fieldset>
  );
}
