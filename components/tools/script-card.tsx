'use client';
/**
 * Card for `skills.runScript`: which script ran with which arguments, how it ended (exit code, time, limits hit) and
 * what it printed. stdout and stderr are shown exactly as returned, trailing newline included: the card is where a
 * person checks what the model was given. A script of a skill under `ask` that declares hosts the operator has not
 * granted waits for the person first, with the script line it will run.
 */
import { ArtifactCards } from '@/components/files/artifact-card';
import { commandLine, formatDuration } from '@/components/lib/format';
import type { RunScriptInput, RunScriptOutput } from '@/server/chat/wire-types';
import { NO_STANDING_GRANT } from '@/server/tools/names';
import { EgressLines } from './egress-lines';
import type { ToolRendererProps } from './registry';
import { RunOutput } from './run-output';
import { Badge, ToolCard, TruncatedBadge } from './tool-card';

export function RunScriptCard({ call }: ToolRendererProps<RunScriptInput, RunScriptOutput>) {
  const { input, output } = call;
  const path = output?.path ?? input?.path;
  const args = output?.args ?? (input?.args ?? []).filter((a): a is string => typeof a === 'string');
  return (
    <>
      <ToolCard
        call={call}
        subject={output?.name ?? input?.name}
        path={path}
        badges={
          output ? (
            <>
              <Badge tone={output.exitCode === 0 ? 'ok' : 'danger'} testId="script-exit-code">
                exit {output.exitCode}
              </Badge>
              <Badge testId="script-duration">{formatDuration(output.durationMs)}</Badge>
              {output.timedOut ? (
                <Badge tone="warn" testId="badge-timed-out">
                  timed out
                </Badge>
              ) : null}
              <TruncatedBadge when={output.truncated} />
            </>
          ) : null
        }
        approval={{
          // Asked only for network hosts the skill declares and the operator has not granted (the reason names them).
          question: 'Let this script reach the network?',
          details: (
            <pre className="tool-card__command" data-testid="script-command">
              <span aria-hidden="true">$ </span>
              {commandLine(path ?? '', args)}
            </pre>
          ),
          // A dynamic served skill: nothing a grant could be tied to (server/tools/network-consent.ts).
          allowAlways: !call.approval?.requestReason?.includes(NO_STANDING_GRANT),
        }}
      >
        {output ? (
          <>
            <pre className="tool-card__command" data-testid="script-command">
              <span aria-hidden="true">$ </span>
              {commandLine(output.path, args)}
            </pre>
            <RunOutput output={output} finished testId="script" />
            <EgressLines lines={output.egress} />
          </>
        ) : null}
      </ToolCard>
      {/* Files the run produced stay visible under the card, collapsed or not. */}
      <ArtifactCards files={output?.files} />
    </>
  );
}
