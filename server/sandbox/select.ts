/**
 * Which backend runs scripts, and why (shown on /admin). `auto` takes bwrap when it can really start a sandbox
 * here, else just-bash; an explicit `bwrap` that cannot start is an error at run time, never a silent fallback to
 * something weaker than the operator asked for. Nothing ever runs a script on the host without one of them.
 */
import { type Availability, createBwrapBackend, probeBwrap } from './bwrap';
import type { BackendName } from './types';

export interface SandboxChoice {
  backend: BackendName | null;
  reason: string;
  /** What bwrap's probe said, for the admin page. */
  bwrap: Availability;
}

const g = globalThis as typeof globalThis & { __skillchatSandboxProbe?: Promise<Availability> };

/** Probes once per process: bwrap's availability does not change while the server runs. */
export function bwrapAvailability(uid: number): Promise<Availability> {
  g.__skillchatSandboxProbe ??= probeBwrap({ sandboxUid: uid });
  return g.__skillchatSandboxProbe;
}

export async function chooseSandbox(wanted: 'auto' | BackendName, uid: number): Promise<SandboxChoice> {
  const bwrap =
    wanted === 'just-bash'
      ? ({ ok: false, reason: 'not probed: just-bash was chosen' } as const)
      : await bwrapAvailability(uid);
  if (wanted === 'just-bash') {
    return { backend: 'just-bash', reason: 'just-bash was chosen in the configuration', bwrap };
  }
  if (bwrap.ok) {
    const how = wanted === 'bwrap' ? 'chosen in the configuration' : 'chosen automatically';
    return { backend: 'bwrap', reason: `bubblewrap ${how} (${bwrap.detail})`, bwrap };
  }
  if (wanted === 'bwrap') return { backend: null, reason: `bubblewrap was configured but ${bwrap.reason}`, bwrap };
  return { backend: 'just-bash', reason: `just-bash (fallback): ${bwrap.reason}`, bwrap };
}

export { createBwrapBackend };
