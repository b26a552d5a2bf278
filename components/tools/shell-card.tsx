'use client';
/**
 * Card for `sandbox.exec`, the model's shell: the command line, then how it is going (queued behind other runs,
 * running with its output so far, or done with exit code, time, the limit that stopped it and the files it made).
 * While it waits for approval the exact command is shown: that is what the person allows.
 */
import { ArtifactCards } from '@/components/files/artifact-card';
import { formatDuration } from '@/components/lib/format';
import { hiddenTextSegments } from '@/server/skills/load/hidden-text';
import { ASKED_EACH_TIME } from '@/server/tools/names';
import type { ShellInput, ShellOutput } from '@/server/tools/sandbox-exec';
import { standingPrefix } from '@/server/tools/shell-prefix';
import { EgressLines } from './egress-lines';
import type { ToolRendererProps } from './registry';
import { RunOutput } from './run-output';
import { Badge, ToolCard, TruncatedBadge } from './tool-card';

/**
 * The command as it runs, with each hidden character (a bidi override, a zero-width space, a tag character) shown
 * as its code point in place: never left to reorder or hide what the person reads.
 */
function CommandLine({ command }: { command: string }) {
  return (
    <pre className="tool-card__command" data-testid="shell-command">
      <span aria-hidden="true">$ </span>
      {hiddenTextSegments(command).map((segment, i) =>
        'text' in segment ? (
          segment.text
        ) : (
          <mark
            // biome-ignore lint/suspicious/noArrayIndexKey: the segments of one fixed string, in order.
            key={i}
            className="tool-card__hidden"
            title={`hidden ${segment.kind} character`}
            data-testid="shell-hidden-char"
          >
            {segment.codePoint}
          </mark>
        ),
      )}
    </pre>
  );
}

export function ShellCard({ call }: ToolRendererProps<ShellInput, ShellOutput>) {
  const { input, output } = call;
  const command = output?.command ?? input?.command ?? '';
  // The header's summary names each hidden character too (as text: it is one line).
  const firstLine = hiddenTextSegments(command.split('\n', 1)[0] ?? '')
    .map((segment) => ('text' in segment ? segment.text : `⟨${segment.codePoint}⟩`))
    .join('');
  const done = output?.state === 'done';
  const prefix = standingPrefix(command);
  return (
    <>
      <ToolCard
        call={call}
        path={firstLine.length > 60 ? `${firstLine.slice(0, 59)}…` : firstLine}
        badges={
          output ? (
            <>
              {output.state === 'queued' ? (
                <Badge tone="warn" testId="shell-queued">
                  queued{output.ahead ? ` (${output.ahead} ahead)` : ''}
                </Badge>
              ) : null}
              {done && output.exitCode !== null ? (
                <Badge tone={output.exitCode === 0 && !output.limit ? 'ok' : 'danger'} testId="shell-exit-code">
                  exit {output.exitCode}
                </Badge>
              ) : null}
              {output.state !== 'queued' ? (
                <Badge testId="shell-duration">{formatDuration(output.durationMs)}</Badge>
              ) : null}
              {output.limit ? (
                <Badge tone="warn" testId="shell-limit">
                  {output.limit} limit
                </Badge>
              ) : null}
              <TruncatedBadge when={output.truncated} />
            </>
          ) : null
        }
        approval={{
          question: 'Run this command?',
          details: <CommandLine command={command} />,
          // The server offers the same prefix as a standing grant of this person's (server/tools/sandbox-exec.ts).
          // Not for a command that also asks for hosts, nor one with hidden characters (the server offers none).
          allowAlways:
            prefix !== null &&
            !call.approval?.requestReason?.includes(ASKED_EACH_TIME) &&
            hiddenTextSegments(command).every((segment) => 'text' in segment),
          alwaysLabel: (
            <>
              Always allow <code data-testid="approval-always-prefix">{prefix} …</code>
            </>
          ),
        }}
      >
        {output ? (
          <>
            <CommandLine command={command} />
            <RunOutput output={output} finished={done} testId="shell" />
            <EgressLines lines={output.egress} />
          </>
        ) : null}
      </ToolCard>
      <ArtifactCards files={done ? output?.files : undefined} />
    </>
  );
}
