'use client';
import type { ActivateInput, ActivateOutput, ReadResourceInput, ReadResourceOutput } from '@/server/chat/wire-types';
/**
 * Cards for the skill tools that load text: what was activated (and from where, with its `allowed-tools` shown for
 * information) and which file was read. Activation may wait for the person's approval; the shared frame shows the
 * prompt with the question asked here.
 */
import { NO_STANDING_GRANT } from '@/server/tools/names';
import type { ToolRendererProps } from './registry';
import { Badge, formatBytes, ToolCard, TruncatedBadge } from './tool-card';

export function ActivateCard({ call }: ToolRendererProps<ActivateInput, ActivateOutput>) {
  const { input, output } = call;
  const name = output?.name ?? input?.name;
  return (
    <ToolCard
      call={call}
      subject={name}
      path={output?.location}
      approval={{
        // A dynamic served skill: the server says nothing a grant could be tied to (server/chat/approvals.ts).
        allowAlways: !call.approval?.requestReason?.includes(NO_STANDING_GRANT),
        question: (
          <>
            Load the skill <strong>{name ?? 'this skill'}</strong> into this chat?
          </>
        ),
        details: (
          <p className="approval__note">
            Allow loads it this once. Always allow also skips this question in later chats until its SKILL.md or a
            script changes.
          </p>
        ),
      }}
      badges={
        output ? (
          <>
            {output.alreadyActive ? <Badge testId="badge-already-active">already active</Badge> : null}
            <TruncatedBadge when={output.truncated} />
          </>
        ) : null
      }
    >
      {output ? (
        <>
          {output.description ? <p className="tool-card__description">{output.description}</p> : null}
          {call.approval?.isAutomatic && call.approval.reason ? (
            <p className="tool-card__description" data-testid="approval-note">
              Not asked: {call.approval.reason}
            </p>
          ) : null}
          {output.allowedTools ? (
            <p className="tool-card__allowed" data-testid="allowed-tools">
              <span className="tool-card__label">allowed-tools</span> <code>{output.allowedTools}</code>{' '}
              <span className="tool-card__hint">— shown only, grants nothing by itself</span>
            </p>
          ) : null}
          {output.notice ? <p className="tool-card__notice">{output.notice}</p> : null}
          {output.instructions ? <pre className="tool-card__pre">{output.instructions}</pre> : null}
          {output.resources.length > 0 ? (
            <div className="tool-card__files">
              <span className="tool-card__label">Files</span>
              <ul>
                {output.resources.map((file) => (
                  <li key={file}>
                    <code>{file}</code>
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
        </>
      ) : null}
    </ToolCard>
  );
}

export function ReadResourceCard({ call }: ToolRendererProps<ReadResourceInput, ReadResourceOutput>) {
  const { input, output } = call;
  return (
    <ToolCard
      call={call}
      subject={output?.name ?? input?.name}
      path={output?.path ?? input?.path}
      badges={
        output ? (
          <>
            <Badge>{formatBytes(output.bytes)}</Badge>
            {output.binary ? <Badge>binary</Badge> : null}
            <TruncatedBadge when={output.truncated} />
          </>
        ) : null
      }
    >
      {output ? (
        <>
          {output.notice ? <p className="tool-card__notice">{output.notice}</p> : null}
          {output.content ? <pre className="tool-card__pre">{output.content}</pre> : null}
        </>
      ) : null}
    </ToolCard>
  );
}
