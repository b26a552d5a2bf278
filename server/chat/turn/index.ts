/**
 * The turn runtime: running a chat's turn (`runChatTurn`), stopping it wherever it runs (`stopChat`), and what
 * a request's turn runs with (`turnDeps`). The steps live in `run.ts`, read top to bottom.
 */
export { createRunningTurns, type RunningTurns } from '../running/active-turns';
export { type TurnApp, type TurnDeps, turnDeps } from './deps';
export { MAX_STEPS } from './model-answer';
export { runChatTurn } from './run';
export { type StopOptions, type StopOutcome, stopChat } from './stop';
