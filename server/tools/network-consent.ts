/**
 * How a run asks for the network hosts its skills declare and the operator has not granted, for skills whose
 * permission is `ask` (egress/grants.ts `ungrantedHosts`). The person is asked before the run, on the call's own
 * card, never while a connection waits: a held CONNECT times out in clients (pip after 15 s, curl's connect timeout)
 * while a person reads a card, and one approvals path keeps one way to answer. The ask carries the hosts it names
 * (`ConsentAsk.network`); once it passes, chat/approvals.ts hands exactly those to the call's run.
 *
 * A script is one skill's: the subject is `network` for that skill and hosts, bound to the skill's content hash, so
 * "Always allow" holds until SKILL.md or a script changes (as activation does). A command runs with every active
 * skill: one ask names each skill's hosts, approved once, never always (the command is the version).
 */
import { skillContentHash } from '../access/content-hash';
import type { ConsentAsk } from '../consent/ask';
import type { SkillHosts } from '../egress/grants';
import type { Skill } from '../skills/types';
import type { ConsentToolContext } from './context';
import { ASKED_EACH_TIME, NO_STANDING_GRANT } from './names';

/** `"weather" declares network access the operator has not granted: api.weather.test:443, api.weather.test:80` */
function declaredSentence(ask: SkillHosts): string {
  return `"${ask.skill}" declares network access the operator has not granted: ${ask.hosts.join(', ')}`;
}

/** The hosts of every ask, each once, sorted: the `hosts` of a subject. */
function allHosts(asks: readonly SkillHosts[]): string {
  return [...new Set(asks.flatMap((a) => a.hosts))].sort().join(' ');
}

/** The card for a script of `skill` when it declares hosts not granted to it; null when it asks nothing. */
export function scriptNetworkConsent(ctx: Pick<ConsentToolContext, 'ungrantedHosts'>, skill: Skill): ConsentAsk | null {
  const ask = ctx.ungrantedHosts?.([skill]).find((a) => a.skill === skill.name);
  if (!ask) return null;
  const dynamic = skill.origin?.dynamic === true;
  return {
    subject: { kind: 'network', skill: skill.name, hosts: allHosts([ask]) },
    rule: 'ask',
    reason: `${declaredSentence(ask)}. Its script may reach them if you allow it.${dynamic ? ` ${NO_STANDING_GRANT}` : ''}`,
    version: () => skillContentHash(skill),
    always: !dynamic,
    network: [ask],
  };
}

/** What the active skills under `ask` declare and are not granted: the hosts a command may reach once approved. */
export function commandNetworkAsks(
  ctx: Partial<Pick<ConsentToolContext, 'ungrantedHosts' | 'activated' | 'skills'>>,
): SkillHosts[] {
  const { ungrantedHosts, activated, skills } = ctx;
  if (!ungrantedHosts || !activated || !skills) return [];
  return ungrantedHosts([...activated].flatMap((n) => skills.get(n) ?? []));
}

/** Under shell mode `allow`: the command runs without asking unless it could reach declared, ungranted hosts. */
export function commandNetworkConsent(asks: readonly SkillHosts[], command: string): ConsentAsk {
  return {
    subject: { kind: 'network', skill: asks.map((a) => a.skill).join(','), hosts: allHosts(asks) },
    rule: 'ask',
    reason: `${asks.map(declaredSentence).join('; ')}. This command may reach them if you allow it.`,
    version: async () => command,
    always: false,
    network: asks,
  };
}

/** Under shell mode `ask`: the sentence added to the command's own reason. */
export function commandNetworkSentence(asks: readonly SkillHosts[]): string {
  return ` If you allow it, it may also reach what the active skills declare and the operator has not granted: ${asks
    .map((a) => `"${a.skill}": ${a.hosts.join(', ')}`)
    .join('; ')}. ${ASKED_EACH_TIME}`;
}
