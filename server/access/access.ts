/**
 * The one answer to "may this skill be used, by whom and how". From the operator's permission (policy.ts), the
 * skill's mode (modes.ts, config globs and /admin overrides), the skill's own invocation flags, a grant and how it
 * is invoked, `decideAccess` gives one record: where the catalog shows it, whether the model may activate it, whether
 * a person may invoke it with `/name`, the consent it needs and why, in words. The catalog, the tools, approvals, the
 * slash menu, /admin and `skills list` all read this record.
 *
 * | permission | effect                                                                          |
 * |------------|---------------------------------------------------------------------------------|
 * | `allow`    | the mode decides; no consent needed (`none`)                                    |
 * | `ask`      | the mode decides; consent `ask`, `granted` by a grant or by `/name`             |
 * | `deny`     | as if `off`: hidden, not activatable, not invocable, tools never touch it       |
 *
 * Skill flags (frontmatter, Claude Code compatible): `disable-model-invocation: true` hides the skill from the
 * catalog and search and refuses the model, while `/name` still works; `user-invocable: false` keeps it out of the
 * slash menu and refuses `/name`, while the model may still activate it.
 *
 * A person may switch a skill off for themselves (`switchedOff`, a personal preference): for that person it is as if
 * `off` (hidden, not activatable, not invocable, with its own refusal saying how to switch it back on). An operator
 * setting that already hides or refuses the skill wins, and keeps its own reason.
 */
import type { Permission, SkillMode } from '../config';
import type { ConsentRule } from '../consent/ask';
import { listedInCatalog, modelMayActivate, type ResolvedMode, searchable, userInvocable } from './modes';
import type { ResolvedPermission } from './policy';

/** `listed`: a candidate for the catalog block (the budget may still leave it to search); `searchable`: only found
 * by `skills_search`; `hidden`: the model is never told about it. */
export type CatalogPresence = 'listed' | 'searchable' | 'hidden';

/** `none`: no consent needed; `ask`: the person is asked first; `granted`: consent is given (a grant, or `/name`). */
export type Consent = 'none' | 'ask' | 'granted';

export type InvokedBy = 'explicit' | 'model';

/** The skill's own say over who invokes it (frontmatter). It can only narrow what the operator allows. */
export interface InvocationFlags {
  /** `disable-model-invocation: true`: only a person may invoke it. */
  disableModelInvocation?: boolean;
  /** `user-invocable: false`: only the model may activate it. */
  userInvocable?: boolean;
}

export interface AccessFacts {
  name: string;
  permission: ResolvedPermission;
  mode: ResolvedMode;
  flags?: InvocationFlags;
  /** A grant ("always allow") holds for the skill's current content. */
  granted?: boolean;
  /** Who is asking; `model` unless a person typed `/name`. */
  how?: InvokedBy;
  /** The person asking switched this skill off for themselves. */
  switchedOff?: boolean;
}

export interface SkillAccess {
  name: string;
  permission: Permission;
  /** Why the permission is what it is: `rule "pdf-*"`, `default for ~/.agents/skills`. */
  permissionReason: string;
  /** The mode as configured (with its source, for /admin). */
  mode: ResolvedMode;
  /** The mode the model sees: a denied skill is `off`. */
  effectiveMode: SkillMode;
  catalog: CatalogPresence;
  /** Listed whatever the budget (`pinned`). */
  pinned: boolean;
  modelMayActivate: boolean;
  personMayInvoke: boolean;
  /** The tools may touch it at all (read a file, run a script): not denied and not `off`. */
  usable: boolean;
  consent: Consent;
  /** The person asking switched it off for themselves (and the operator had not already turned it off). */
  switchedOff: boolean;
  /** The decision in words, for people (and for the model when it is refused). */
  reason: string;
}

export function decideAccess(facts: AccessFacts): SkillAccess {
  const { name, permission, mode, flags = {} } = facts;
  const denied = permission.permission === 'deny';
  const operatorMode: SkillMode = denied ? 'off' : mode.mode;
  // The operator's word wins: a personal switch only matters for a skill the operator left on.
  const switchedOff = facts.switchedOff === true && operatorMode !== 'off';
  const effectiveMode: SkillMode = switchedOff ? 'off' : operatorMode;
  const modelBlocked = flags.disableModelInvocation === true;
  const model = modelMayActivate(effectiveMode) && !modelBlocked;
  const person = userInvocable(effectiveMode) && flags.userInvocable !== false;
  const catalog: CatalogPresence = modelBlocked
    ? 'hidden'
    : listedInCatalog(effectiveMode)
      ? 'listed'
      : searchable(effectiveMode)
        ? 'searchable'
        : 'hidden';
  const consent: Consent =
    permission.permission !== 'ask' ? 'none' : facts.granted || facts.how === 'explicit' ? 'granted' : 'ask';
  return {
    name,
    permission: permission.permission,
    permissionReason: permission.reason,
    mode,
    effectiveMode,
    catalog,
    pinned: catalog === 'listed' && effectiveMode === 'pinned',
    modelMayActivate: model,
    personMayInvoke: person,
    usable: effectiveMode !== 'off',
    consent,
    switchedOff,
    reason: shared(
      reasonFor({ switchedOff, denied, effectiveMode, model, person, consent, permission, modelBlocked, flags }),
    ),
  };
}

/** The records share their reasons: a few distinct sentences, else one copy per skill (10,000 at 10,000 skills). */
const reasons = new Map<string, string>();
function shared(reason: string): string {
  const known = reasons.get(reason);
  if (known !== undefined) return known;
  if (reasons.size < 256) reasons.set(reason, reason);
  return reason;
}

function reasonFor(d: {
  switchedOff: boolean;
  denied: boolean;
  effectiveMode: SkillMode;
  model: boolean;
  person: boolean;
  consent: Consent;
  permission: ResolvedPermission;
  modelBlocked: boolean;
  flags: InvocationFlags;
}): string {
  if (d.denied) return `not allowed here (${d.permission.reason})`;
  if (d.switchedOff) return 'switched off by you';
  if (d.effectiveMode === 'off') return 'turned off by the operator';
  const who = d.model && d.person ? 'the model and people' : d.model ? 'the model only' : 'people only (/name)';
  const why = d.modelBlocked
    ? ' (the skill sets disable-model-invocation)'
    : d.flags.userInvocable === false
      ? ' (the skill sets user-invocable: false)'
      : d.effectiveMode === 'manual'
        ? ' (manual mode)'
        : '';
  const consent =
    d.consent === 'ask'
      ? `, asks first (${d.permission.reason})`
      : d.consent === 'granted'
        ? `, consent given (${d.permission.reason})`
        : '';
  return `${d.effectiveMode}: used by ${who}${why}${consent}`;
}

/**
 * Why `how` may not use the skill, as the message the model or the person sees; null when it may. Consent is not a
 * refusal: it is asked for separately (approvals).
 */
export function refusal(access: SkillAccess, how: InvokedBy): string | null {
  const { name } = access;
  if (access.permission === 'deny') return `Skill "${name}" is not allowed here (${access.permissionReason}).`;
  if (access.switchedOff) {
    return how === 'explicit'
      ? `You switched off skill "${name}". To use it again, switch it back on: type / and choose "Manage skills…".`
      : `Skill "${name}" is switched off by the person.`;
  }
  if (how === 'explicit') {
    if (access.personMayInvoke) return null;
    if (access.effectiveMode === 'off') return `Skill "${name}" is turned off by the operator.`;
    return `Skill "${name}" cannot be invoked with /${name}: only the model activates it (user-invocable: false).`;
  }
  if (access.modelMayActivate) return null;
  if (!access.usable) return `Skill "${name}" is turned off by the operator.`;
  return `Skill "${name}" is manual: only the person can invoke it, with /${name}`;
}

/**
 * What a skill's activation needs by way of consent, from its record and who invokes it: nothing (`allow`), a
 * refusal (`deny`), nothing more since the person invoked it with `/name` (`given`), or the person's answer (`ask`).
 * The consent service (server/consent/) asks and remembers; this says what the operator's rule means for a skill.
 */
export function skillConsentRule(access: Pick<SkillAccess, 'permission'>, how: InvokedBy): ConsentRule {
  if (access.permission === 'deny') return 'deny';
  if (access.permission === 'allow') return 'allow';
  return how === 'explicit' ? 'given' : 'ask';
}

/** The frontmatter flags, read defensively: unknown keys are kept as written, never trusted for their type. */
export function invocationFlags(frontmatter: object): InvocationFlags {
  const fm = frontmatter as Record<string, unknown>;
  return {
    ...(fm['disable-model-invocation'] === true ? { disableModelInvocation: true } : {}),
    ...(fm['user-invocable'] === false ? { userInvocable: false } : {}),
  };
}
