/**
 * The turn's part in a run's way out: which skills a run is attributed to is the tool's (a script: its skill; a
 * command: the chat's active skills), and the rest comes from here: the operator's grants, each skill's
 * permission as this person sees it, the person whose secrets the run may use, the package indexes (runtime.installs
 * `allow`: every run, read-only), and where the record goes. A server whose config grants nothing gives runs no way
 * out at all (server/egress/config.ts `egressConfigured`).
 */
import { egressConfigured } from '../../egress/config';
import { readDeclarations } from '../../egress/declarations';
import { approvedTargets, ungrantedHosts } from '../../egress/grants';
import { runEgress } from '../../egress/run-egress';
import { installHosts } from '../../sandbox/installs';
import { resolveRunSecrets } from '../../secrets/resolve';
import type { SkillToolContext } from '../../tools';
import type { TurnContext } from './context';

/** No store: a `${env:}` secret still resolves, a stored one is missing (tests and the bench build deps by hand). */
const NO_STORED_SECRETS = { get: async () => null };

export function turnEgress(turn: Pick<TurnContext, 'deps' | 'chatId' | 'view'>): SkillToolContext['egress'] {
  const { deps, chatId, view } = turn;
  const config = deps.config.egress;
  const { execution } = deps.config;
  const installs = execution.runtime.installs === 'allow';
  if (!egressConfigured(config, installs)) return undefined;
  const person = deps.owner ?? null;
  return (skills, approved) =>
    runEgress({
      config,
      skills: skills.map((skill) => ({ name: skill.name, declares: readDeclarations(skill) })),
      permission: (name) => view.access.get(name)?.permission ?? 'deny',
      // Only what the call's consent named (chat/approvals.ts): a declared host is reached after the person's answer.
      ...(approved && approved.length > 0 ? { approved: approvedTargets(approved) } : {}),
      secrets: () =>
        resolveRunSecrets({
          config: config.secrets,
          person,
          skills: skills.map((s) => s.name),
          env: process.env,
          store: deps.egress?.secrets ?? NO_STORED_SECRETS,
        }),
      record: { db: deps.egress?.db ?? null, chatId, userId: person },
      ...(installs ? { installs: () => installHosts(execution) } : {}),
      ...(deps.egress?.resolve ? { resolve: deps.egress.resolve } : {}),
    });
}

/**
 * What the skills under `ask` declare and the operator has not granted them, as this person's permissions say: what
 * a run's approval card names. None on a server whose runs get no way out at all (no grants, no secrets, installs
 * off): its runs stay sealed, so there is nothing an approval could open.
 */
export function turnUngrantedHosts(turn: Pick<TurnContext, 'deps' | 'view'>): SkillToolContext['ungrantedHosts'] {
  const config = turn.deps.config.egress;
  // The same condition as turnEgress: where runs get no proxy, nothing could be approved.
  if (!egressConfigured(config, turn.deps.config.execution.runtime.installs === 'allow')) return undefined;
  const permission = (name: string) => turn.view.access.get(name)?.permission ?? 'deny';
  return (skills) =>
    ungrantedHosts(
      config,
      skills.map((skill) => ({ name: skill.name, declares: readDeclarations(skill) })),
      permission,
    );
}
