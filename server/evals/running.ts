/**
 * The output evals running in this process, one per author: the app's (`app.evals`), so Stop from any route finds
 * the run another route started. Its own small module: the app imports it, and the app is in every page's bundle,
 * which must not pull in the turn that runs the evals (output.ts).
 */

/** The running eval of each author, by user id. */
export type RunningEvals = Map<string, { controller: AbortController; skill: string }>;

export function createRunningEvals(): RunningEvals {
  return new Map();
}

/** Stops every running eval (the app closing). */
export function stopAllOutputEvals(evals: RunningEvals): void {
  for (const entry of evals.values()) entry.controller.abort();
}
