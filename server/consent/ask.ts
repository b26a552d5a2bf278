/**
 * How a tool call asks for consent: the tool states what it needs (`ConsentAsk`), the consent service decides
 * (service.ts), the approvals path shows the card and stores the answer (chat/approvals.ts). The shape follows
 * opencode's `ctx.ask({ permission, patterns, always })`: a subject instead of patterns, the operator's rule for it,
 * the version an answer binds to, and whether "Always allow" is offered.
 */
import type { SkillHosts } from '../egress/grants';
import type { ConsentSubject } from './subjects';

/**
 * `allow`: runs without asking. `deny`: refused, `reason` goes to the model. `given`: consent came with the request
 * itself (a person's `/name`), `reason` says so. `ask`: the person answers on the card, unless a grant holds.
 */
export type ConsentRule = 'allow' | 'deny' | 'given' | 'ask';

export interface ConsentAsk {
  subject: ConsentSubject;
  rule: ConsentRule;
  /** The card's question (`ask`), the refusal (`deny`), why it is approved (`given`); unused for `allow`. */
  reason: string;
  /**
   * What an answer binds to: a skill's content hash, an MCP tool's definition hash, the exact command. Computed only
   * when a grant is looked up or an answer stored (a skill's hash reads its files).
   */
  version: () => Promise<string>;
  /** Whether "Always allow" is offered: an answer kept as a grant for this version. */
  always: boolean;
  /**
   * Declared hosts the call's run may reach once this ask passes (approved, or a standing grant): the hosts its
   * reason names. The approvals path hands them to the call's run; nothing else lets a run reach an ungranted host.
   */
  network?: readonly SkillHosts[];
  /**
   * A person's standing grant "Always allow" keeps instead of this exact subject (a shell command's prefix), and
   * whether the person's standing grants of its kind already cover this call.
   */
  standing?: { subject: ConsentSubject; covered(granted: readonly ConsentSubject[]): boolean };
}

/** A call that needs no consent at all. */
export function allowed(subject: ConsentSubject, version: () => Promise<string>): ConsentAsk {
  return { subject, rule: 'allow', reason: '', version, always: false };
}
