/**
 * What every skill tool works with during a turn. Each tool resolves the skill by name from the turn's snapshot of
 * the registry (never by joining a name into a path) and reads files only through `server/skills/resources/resources.ts`.
 * Failures are thrown as `SkillToolError` with safe, relative-path messages: the model sees them as tool errors and
 * the browser renders an error card.
 */
import type { AccessMap } from '../access/resolver';
import type { Limits } from '../config';
import type { ScriptRunInput } from '../db';
import type { SkillHosts } from '../egress/grants';
import type { RunEgress } from '../egress/types';
import type { ExecutionConfig, ShellMode } from '../sandbox/config';
import type { Matcher } from '../skills/catalog/match';
import type { DisplayContext } from '../skills/display';
import type { Skill } from '../skills/types';
import { TOOL_SEARCH } from './names';

export type ActivationHow = 'explicit' | 'model';

export interface SkillToolContext {
  /** Skills the tools may touch this turn (their access record says `usable`), by name. */
  skills: ReadonlyMap<string, Skill>;
  /** Each skill's access record: whether the model may activate it, and why not. */
  access: AccessMap;
  /** Names for the activation tool's enum; absent when unlisted skills are reachable (then a free string). */
  activationEnum?: [string, ...string[]] | null;
  /** Set when skills were left out of the catalog: `skills_search` is offered over `skills`. */
  search?: { matcher: () => Matcher } | null;
  /** Names already active in this chat; activation adds to it. */
  activated: Set<string>;
  /** What each active served skill's activation was approved under (served-pin.ts); activation updates it. */
  pins?: Map<string, string | null>;
  limits: Limits;
  display: DisplayContext;
  /** Persists an activation (the chat's activations and the event log). */
  onActivated: (name: string, how: ActivationHow, version: string | null) => void | Promise<void>;
  /** Skills the person invoked with `/name` (or `/a /b`) this turn: their activations count as explicit. */
  explicitSkills?: readonly string[];
  /** What followed `/name` (or the `/a /b` names): fills `$ARGUMENTS` and `$1`..`$9` in an explicit activation. */
  explicitArguments?: string;
  /** Logs a sandboxed script run. */
  onScriptRun?: (run: Omit<ScriptRunInput, 'chatId' | 'at'>) => void | Promise<void>;
  /** Aborts running scripts with the turn (Stop). */
  signal?: AbortSignal;
  /** The chat whose workspace scripts run in, and the sandbox settings. */
  chatId?: string;
  execution?: ExecutionConfig;
  /** Whether the model may run command lines in the sandbox, and whether each waits for approval. Absent: off. */
  shell?: ShellMode;
  /** Whose fair share of the server's run slots this turn's runs count against. */
  owner?: string;
  /**
   * A run's way out for code attributed to `skills` (the script's own skill, or the chat's active ones for a
   * command): its grants, secrets and record (egress/run-egress.ts). Absent, or undefined for these skills: sealed.
   */
  egress?: (skills: readonly Skill[], approved?: readonly SkillHosts[]) => RunEgress | undefined;
  /**
   * The hosts each of `skills` under `ask` declares and the operator has not granted (egress/grants.ts
   * `ungrantedHosts`): what a run's approval card names. Absent when runs have no way out at all.
   */
  ungrantedHosts?: (skills: readonly Skill[]) => SkillHosts[];
  /**
   * The declared hosts the consent of this tool call covered (`ConsentAsk.network`, kept by chat/approvals.ts when
   * the call was approved or held a standing grant): the only ones its run may reach beyond its grants.
   */
  approvedNetwork?: (toolCallId: string) => readonly SkillHosts[];
}

/** What a tool reads to say how a call asks for consent (its declaration's `consent`): no writer, no run state. */
export type ConsentToolContext = Pick<
  SkillToolContext,
  'skills' | 'access' | 'activated' | 'explicitSkills' | 'display' | 'shell' | 'ungrantedHosts'
>;

export class SkillToolError extends Error {
  override name = 'SkillToolError';
}

/** Names listed in an error, so a 10,000-skill install does not put 10,000 names in one tool result. */
const MAX_NAMES_IN_ERROR = 20;

/** The skill a tool call names, or an error that helps the model recover (`Available skills: a, b`). */
export function skillNamed(ctx: Pick<SkillToolContext, 'skills'>, name: string): Skill {
  const skill = ctx.skills.get(name);
  if (skill) return skill;
  const names = [...ctx.skills.keys()].sort();
  const shown = names.slice(0, MAX_NAMES_IN_ERROR).join(', ') || '(none)';
  const more =
    names.length > MAX_NAMES_IN_ERROR
      ? `, … and ${names.length - MAX_NAMES_IN_ERROR} more (find them with ${TOOL_SEARCH})`
      : '';
  throw new SkillToolError(`Skill "${name}" not found. Available skills: ${shown}${more}`);
}
