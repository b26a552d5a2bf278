/**
 * The one place consent is decided and remembered. A tool states what a call needs (`ConsentAsk`, ask.ts);
 * `decideConsent` answers the AI SDK's tool approval (run, refuse, or ask the person), looking up "Always allow"
 * grants; `recordAnswer` stores the person's answer: a grant when "Always allow" was chosen and is offered, and a
 * line in the decision log for the kinds that keep one.
 */
import type { ToolApprovalStatus } from 'ai';
import type { PermissionDecision } from '../db';
import type { ConsentAsk } from './ask';
import { type ConsentSubject, isLogged, type SubjectKind, storedSubject, subjectNoun } from './subjects';

/** What consent remembers: grants (global, an operator's matter) and the log of answers. */
export interface ConsentStore {
  hasGrant(subject: ConsentSubject, version: string): Promise<boolean>;
  /** Stores a grant: everyone's, or the asking person's own for a personal kind (subjects.ts). */
  addGrant(subject: ConsentSubject, version: string): Promise<void>;
  /** The asking person's own standing grants of a personal kind. */
  personalGrants(kind: SubjectKind): Promise<ConsentSubject[]>;
  recordDecision(input: {
    chatId: string;
    subject: ConsentSubject;
    decision: PermissionDecision;
    version: string;
  }): Promise<void>;
}

/** Whether this call runs, is refused, or waits for the person. Null: the call asks nothing. */
export async function decideConsent(
  ask: ConsentAsk | null,
  store: Pick<ConsentStore, 'hasGrant' | 'personalGrants'>,
): Promise<ToolApprovalStatus> {
  if (!ask) return undefined;
  switch (ask.rule) {
    case 'allow':
      return undefined;
    case 'deny':
      return { type: 'denied', reason: ask.reason };
    case 'given':
      return { type: 'approved', reason: ask.reason };
    case 'ask':
      if (ask.standing?.covered(await store.personalGrants(ask.standing.subject.kind))) {
        return { type: 'approved', reason: 'Always allowed for you: it starts with a command you allowed.' };
      }
      if (ask.always && !ask.standing && (await store.hasGrant(ask.subject, await ask.version()))) {
        return { type: 'approved', reason: `Always allowed for this version of the ${subjectNoun(ask.subject)}.` };
      }
      return { type: 'user-approval', reason: ask.reason };
  }
}

/** Stores a person's answer to the card of `ask`. "Always allow" keeps a grant only where it is offered. */
export async function recordAnswer(
  ask: ConsentAsk,
  answer: { approved: boolean; always?: boolean },
  chatId: string,
  store: ConsentStore,
): Promise<void> {
  const always = answer.approved && answer.always === true && ask.always;
  const decision: PermissionDecision = !answer.approved ? 'denied' : answer.always ? 'always' : 'allowed';
  if (!always && !isLogged(ask.subject)) return;
  const version = await ask.version();
  if (always) {
    if (ask.standing) await store.addGrant(ask.standing.subject, storedSubject(ask.standing.subject).key);
    else await store.addGrant(ask.subject, version);
  }
  if (isLogged(ask.subject)) await store.recordDecision({ chatId, subject: ask.subject, decision, version });
}
