/**
 * What /admin shows about running code: which backend runs it and why (with bubblewrap's version), the run slots
 * (concurrent runs, each with its own uid), the chats' kept LibreOffice, the model's shell (who may use it), the
 * limits, and the runtime's contents (its seccomp filter among them).
 */

import { SECCOMP_CONDITIONS, SECCOMP_DENIED } from '../toolchain/seccomp';
import { describeRuntime, type RuntimeReport } from '../toolchain/skills-runtime';
import type { ExecutionConfig, ShellMode } from './config';
import { sandboxLimits } from './config';
import { officeHosts } from './office-host';
import type { BackendName, SandboxLimits } from './port';
import { chooseSandbox, runSlots } from './select';
import { type ShellModeSource, shellModeFor } from './shell';

export interface SandboxStatus {
  configured: 'auto' | BackendName;
  backend: BackendName | null;
  reason: string;
  /** `bubblewrap 0.8.0`, when it runs here. */
  bubblewrap: string | null;
  runs: { maxConcurrent: number; running: number; waiting: number; perRunUid: boolean; uids: string };
  /** Chats' LibreOffice kept running for their later conversions (office-host.ts). */
  office: {
    max: number;
    idleSeconds: number;
    running: number;
    conversions: number;
    /** Conversions left to soffice in the run (a chat's first, a command line it does not take, a failure). */
    fallbacks: number;
    uids: string;
  };
  /** How the memory and process limits are enforced here (a cgroup per run, or the fallback), in words. */
  enforcement: { memory: string; processes: string } | null;
  shell: { mode: ShellMode; source: ShellModeSource; people: Record<string, ShellMode> };
  /** What the seccomp filter refuses, each with its condition when it has one (`clone with CLONE_NEWUSER`). */
  seccompDenied: string[];
  limits: SandboxLimits;
  runtime: RuntimeReport & { dir: string };
}

export async function loadSandboxStatus(
  config: ExecutionConfig,
  server: { exposed: boolean } = { exposed: false },
): Promise<SandboxStatus> {
  const choice = await chooseSandbox(config);
  const slots = runSlots(config).stats();
  const office = officeHosts(config).stats();
  const { uid, maxConcurrentRuns, officeHosts: maxOffice, officeIdleSeconds } = config.sandbox;
  const { mode, source } = shellModeFor(config.shell, { exposed: server.exposed });
  return {
    configured: config.sandbox.backend,
    backend: choice.backend?.name ?? null,
    reason: choice.reason,
    bubblewrap: choice.availability.ok && choice.backend?.name === 'bwrap' ? choice.availability.version : null,
    runs: {
      maxConcurrent: maxConcurrentRuns,
      running: slots.running,
      waiting: slots.waiting,
      perRunUid: choice.availability.ok && choice.availability.perRunUid,
      uids: `${uid + 1}-${uid + maxConcurrentRuns}`,
    },
    office: {
      max: maxOffice,
      idleSeconds: officeIdleSeconds,
      running: office.hosts,
      conversions: office.conversions,
      fallbacks: office.fallbacks,
      uids: `${uid + maxConcurrentRuns + 1}-${uid + maxConcurrentRuns + maxOffice}`,
    },
    enforcement: (choice.availability.ok && choice.availability.enforcement) || null,
    shell: { mode, source, people: config.shell.people },
    seccompDenied: SECCOMP_DENIED.map((name) =>
      SECCOMP_CONDITIONS[name] ? `${name} ${SECCOMP_CONDITIONS[name]}` : name,
    ),
    limits: sandboxLimits(config),
    runtime: { ...(await describeRuntime(config.runtime.dir)), dir: config.runtime.dir },
  };
}
