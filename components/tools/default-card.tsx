'use client';
/** Card for tools without a registered renderer: shows the raw input and output so nothing is hidden. */
import type { ToolRendererProps } from './registry';
import { ToolCard } from './tool-card';

function json(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? '';
  } catch {
    return String(value);
  }
}

export function DefaultToolCard({ call }: ToolRendererProps) {
  const hasInput =
    call.input !== undefined && !(typeof call.input === 'object' && Object.keys(call.input ?? {}).length === 0);
  const hasOutput = call.output !== undefined;
  return (
    <ToolCard call={call}>
      {hasInput || hasOutput ? (
        <>
          {hasInput ? (
            <>
              <span className="tool-card__label">Input</span>
              <pre className="tool-card__pre">{json(call.input)}</pre>
            </>
          ) : null}
          {hasOutput ? (
            <>
              <span className="tool-card__label">Output</span>
              <pre className="tool-card__pre">{json(call.output)}</pre>
            </>
          ) : null}
        </>
      ) : null}
    </ToolCard>
  );
}
