/**
 * Who may have the model run command lines (`sandbox_exec`): the operator's `shell.mode`, a person's override, or
 * the default for how the server is reached.
 *
 * The defaults: on a loopback install the one person is also the operator, the command runs in the same sandbox a
 * skill's script does (no network, no host files, limits), and asking before every `ls` would make document skills
 * unusable: `allow`. On an exposed (team) server the operator has not yet said what members may run, so each
 * command waits for the person's approval: `ask`.
 */
import type { ExecutionConfig, ShellMode } from './config';

export type ShellModeSource = 'person' | 'config' | 'default';

export interface ShellDecision {
  mode: ShellMode;
  source: ShellModeSource;
}

export function shellModeFor(
  shell: ExecutionConfig['shell'],
  who: { exposed: boolean; email?: string | null },
): ShellDecision {
  const email = who.email?.toLowerCase();
  const personal = email
    ? Object.entries(shell.people).find(([address]) => address.toLowerCase() === email)?.[1]
    : undefined;
  if (personal) return { mode: personal, source: 'person' };
  if (shell.mode) return { mode: shell.mode, source: 'config' };
  return { mode: who.exposed ? 'ask' : 'allow', source: 'default' };
}
