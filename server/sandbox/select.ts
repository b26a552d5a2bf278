/**
 * The sandbox of this process: whether bubblewrap can start one here (probed once: it does not change while the
 * server runs; shown on /admin), and the run slots every run takes one of (slots.ts). Nothing ever runs code on the
 * host: without bubblewrap, scripts and commands are refused with the probe's reason.
 *
 * One record on `globalThis`: Next bundles route handlers separately, and the slots must be one set per process
 * or the cap on concurrent runs would be per route.
 */
import { type Availability, createBwrapBackend, probeBwrap } from './bwrap';
import type { ExecutionConfig } from './config';
import { createRunSlots, type RunSlots } from './slots';
import type { BackendName } from './types';

export interface SandboxChoice {
  backend: BackendName | null;
  reason: string;
  /** What bwrap's probe said, for the admin page. */
  bwrap: Availability;
}

interface SandboxState {
  probe?: Promise<Availability>;
  slots?: { key: string; slots: RunSlots };
}

const g = globalThis as typeof globalThis & { __skillchatSandbox?: SandboxState };
g.__skillchatSandbox ??= {};
const state: SandboxState = g.__skillchatSandbox;

export function bwrapAvailability(uid: number): Promise<Availability> {
  state.probe ??= probeBwrap({ sandboxGid: uid });
  return state.probe;
}

export async function chooseSandbox(config: Pick<ExecutionConfig, 'sandbox'>): Promise<SandboxChoice> {
  const bwrap = await bwrapAvailability(config.sandbox.uid);
  if (!bwrap.ok) return { backend: null, reason: bwrap.reason, bwrap };
  const how = config.sandbox.backend === 'bwrap' ? 'chosen in the configuration' : 'chosen automatically';
  return { backend: 'bwrap', reason: `bubblewrap ${how} (${bwrap.detail})`, bwrap };
}

/** The process's run slots; a changed size or uid range (tests, a reloaded config) gets a fresh set. */
export function runSlots(config: Pick<ExecutionConfig, 'sandbox'>): RunSlots {
  const { maxConcurrentRuns, uid } = config.sandbox;
  const key = `${maxConcurrentRuns}:${uid}`;
  if (state.slots?.key !== key) state.slots = { key, slots: createRunSlots(maxConcurrentRuns, uid + 1) };
  return state.slots.slots;
}

export { createBwrapBackend };
