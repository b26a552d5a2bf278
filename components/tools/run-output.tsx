'use client';
/**
 * What a run printed, as the script and shell cards both show it: why it stopped and how to fix a missing package
 * (when said), stdout exactly as returned (trailing newline included: the card is where a person checks what the
 * model was given), and stderr when there is any.
 */
export function RunOutput({
  output,
  finished,
  testId,
}: {
  output: { stdout: string; stderr: string; error?: string; hint?: string };
  /** Whether the run is over: "Nothing was printed" only then (a running command may print yet). */
  finished: boolean;
  /** Prefix of the parts' test ids: `script` or `shell`. */
  testId: string;
}) {
  return (
    <>
      {output.error ? (
        <p className="tool-card__notice" data-testid={`${testId}-error`}>
          {output.error}
        </p>
      ) : null}
      {output.hint ? (
        <p className="tool-card__notice" data-testid={`${testId}-hint`}>
          {output.hint}
        </p>
      ) : null}
      {output.stdout || finished ? <span className="tool-card__label">stdout</span> : null}
      {output.stdout ? (
        <pre className="tool-card__pre" data-testid={`${testId}-stdout`}>
          {output.stdout}
        </pre>
      ) : finished ? (
        <p className="tool-card__hint" data-testid={`${testId}-no-stdout`}>
          Nothing was printed.
        </p>
      ) : null}
      {output.stderr ? (
        <>
          <span className="tool-card__label">stderr</span>
          <pre className="tool-card__pre tool-card__pre--stderr" data-testid={`${testId}-stderr`}>
            {output.stderr}
          </pre>
        </>
      ) : null}
    </>
  );
}
