/**
 * The sandbox of this process: which backend runs code (`sandbox.backend`: one by name, or `auto`, the first of
 * BACKENDS whose probe succeeds), whether it can (probed once: it does not change while the server runs; shown on
 * /admin), and the run slots every run takes one of (slots.ts). Nothing ever runs code on the host: without a
 * backend, scripts and commands are refused with the probe's reason.
 *
 * One record per process (process-wide.ts): Next bundles route handlers separately, and the slots must be one set
 * per process or the cap on concurrent runs would be per route.
 */

import { oncePerKey } from '../once-per-key';
import { processWide } from '../process-wide';
import { createBwrapBackend } from './bwrap';
import type { ExecutionConfig, SandboxBackendName } from './config';
import type { Availability, SandboxBackend } from './port';
import { type CgroupSetting, findRunCgroups, type RunCgroupSupport } from './run-cgroup';
import { createRunSlots, type RunSlots } from './slots';

type MakeBackend = (config: SandboxSettings) => SandboxBackend;

/** Every backend by its `sandbox.backend` name, in the order `auto` tries them. */
const BACKENDS: Record<SandboxBackendName, MakeBackend> = {
  bwrap: (config) =>
    createBwrapBackend({
      sandboxGid: config.sandbox.uid,
      runtimeDir: config.runtime.dir,
      cgroups: () => runCgroups(config.sandbox.cgroup),
    }),
};

type SandboxSettings = Pick<ExecutionConfig, 'sandbox' | 'runtime'>;

export interface SandboxChoice {
  backend: SandboxBackend | null;
  reason: string;
  /** What the chosen backend's probe said (or, when none runs, the first one tried), for the admin page. */
  availability: Availability;
}

interface SandboxState {
  probes: Map<string, Promise<Availability>>;
  /** Which cgroups runs get, by `sandbox.cgroup` setting: tried once per process (run-cgroup.ts). */
  cgroups: Map<string, Promise<RunCgroupSupport>>;
  slots?: { key: string; slots: RunSlots };
  /** What makes the backend in place of the configured one (`replaceSandboxBackend`). */
  replaced?: MakeBackend;
}

const state = processWide<SandboxState>('sandbox', () => ({ probes: new Map(), cgroups: new Map() }));

function runCgroups(setting: CgroupSetting): Promise<RunCgroupSupport> {
  return oncePerKey(state.cgroups, setting, () => findRunCgroups(setting));
}

/** Once per backend and cgroup setting (the probe says which limits the cgroups enforce). */
function probeOnce(backend: SandboxBackend, cgroup: CgroupSetting = 'auto'): Promise<Availability> {
  const key = `${backend.name}:${cgroup}`;
  let probe = state.probes.get(key);
  if (!probe) {
    probe = backend.probe();
    state.probes.set(key, probe);
  }
  return probe;
}

/** Whether bubblewrap can start a sandbox here (tests and the benchmark skip without it). */
export function bwrapAvailability(uid: number): Promise<Availability> {
  return probeOnce(createBwrapBackend({ sandboxGid: uid, cgroups: () => runCgroups('auto') }));
}

export async function chooseSandbox(config: SandboxSettings): Promise<SandboxChoice> {
  const setting = config.sandbox.backend;
  const candidates = state.replaced
    ? [state.replaced(config)]
    : (setting === 'auto' ? (Object.keys(BACKENDS) as SandboxBackendName[]) : [setting]).map((name) =>
        BACKENDS[name](config),
      );
  let first: Availability | null = null;
  for (const backend of candidates) {
    const availability = await probeOnce(backend, config.sandbox.cgroup);
    first ??= availability;
    if (!availability.ok) continue;
    const how = setting === 'auto' && !state.replaced ? 'chosen automatically' : 'chosen in the configuration';
    return { backend, reason: `${backend.label} ${how} (${availability.detail})`, availability };
  }
  const availability = first ?? { ok: false as const, reason: 'no sandbox backend is configured' };
  return { backend: null, reason: availability.ok ? '' : availability.reason, availability };
}

/**
 * Puts the backend `make` returns (for each run's settings) in place of the configured one for this process (null:
 * back to the configuration). For tests that run the same suites through a second backend (test/sandbox/).
 */
export function replaceSandboxBackend(make: MakeBackend | null): void {
  if (make) state.replaced = make;
  else delete state.replaced;
}

/** Refuses the runs waiting for one of the process's run slots (the app closing); makes no slots when none exist. */
export function cancelWaitingRuns(reason: string): number {
  return state.slots?.slots.cancelWaiting(reason) ?? 0;
}

/** The process's run slots; a changed size or uid range (tests, a reloaded config) gets a fresh set. */
export function runSlots(config: Pick<ExecutionConfig, 'sandbox'>): RunSlots {
  const { maxConcurrentRuns, uid } = config.sandbox;
  const key = `${maxConcurrentRuns}:${uid}`;
  if (state.slots?.key !== key) state.slots = { key, slots: createRunSlots(maxConcurrentRuns, uid + 1) };
  return state.slots.slots;
}
