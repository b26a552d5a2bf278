/**
 * What /admin shows about scripts: which backend runs them and why, the limits, and the runtime's contents.
 */
import type { ScriptsConfig } from './config';
import { sandboxLimits } from './config';
import { describeRuntime, type RuntimeReport } from './runtime';
import { chooseSandbox } from './select';
import type { BackendName, SandboxLimits } from './types';

export interface SandboxStatus {
  configured: 'auto' | BackendName;
  backend: BackendName | null;
  reason: string;
  limits: SandboxLimits;
  runtime: RuntimeReport & { dir: string };
}

export async function loadSandboxStatus(config: ScriptsConfig): Promise<SandboxStatus> {
  const choice = await chooseSandbox(config);
  return {
    configured: config.sandbox.backend,
    backend: choice.backend,
    reason: choice.reason,
    limits: sandboxLimits(config),
    runtime: { ...(await describeRuntime(config.runtime.dir)), dir: config.runtime.dir },
  };
}
