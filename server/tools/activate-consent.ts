/**
 * How `skills_activate` asks for consent: the skill is the subject, its content hash the version (so an edit to
 * SKILL.md or a script asks again), the operator's permission the rule. A person's `/name` is consent for that
 * activation; activating a skill already active in the chat asks nothing new. "Always allow" is not offered for a
 * dynamic served skill: nothing pins its content down.
 */
import { refusal, skillConsentRule } from '../access/access';
import { skillContentHash } from '../access/content-hash';
import { allowed, type ConsentAsk } from '../consent/ask';
import { displaySkillLocation } from '../skills/display';
import type { ActivateInput } from './activate';
import type { ConsentToolContext } from './context';
import { NO_STANDING_GRANT } from './names';
import { changedSinceActivation } from './served-pin';

/** Starts a warning line in an approval's reason (hidden text in the skill); the card renders those lines apart. */
export const WARNING_MARK = '⚠ ';

/** Diagnostics about what the skill would put in front of the model: the person deciding should see them. */
const WARNED_CODES: ReadonlySet<string> = new Set(['hidden-text', 'instruction-like-description']);

function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

export function activationConsent(ctx: ConsentToolContext, input: Partial<ActivateInput>): ConsentAsk | null {
  const skill = typeof input.name === 'string' ? ctx.skills.get(input.name) : undefined;
  const access = skill ? ctx.access.get(skill.name) : undefined;
  // An unknown name asks nothing: the tool reports it itself.
  if (!skill || !access) return null;
  const subject = { kind: 'skill', name: skill.name } as const;
  const version = () => skillContentHash(skill);
  const how = ctx.explicitSkills?.includes(skill.name) ? 'explicit' : 'model';
  const rule = skillConsentRule(access, how);
  if (rule === 'deny') return { subject, rule, reason: refusal(access, how)!, version, always: false };
  const changed = changedSinceActivation(ctx, skill);
  if (rule === 'allow' || (ctx.activated.has(skill.name) && !changed)) return allowed(subject, version);
  if (rule === 'given') return { subject, rule, reason: 'Invoked by the person with /name.', version, always: false };
  const location = displaySkillLocation(skill, ctx.display);
  const allowedTools = skill.frontmatter['allowed-tools'];
  const dynamic = skill.origin?.dynamic === true;
  // Each warning is its own `⚠ ` line: the approval card shows those lines as warnings (approval.tsx).
  const warnings = skill.diagnostics
    .filter((d) => WARNED_CODES.has(d.code))
    .map((d) => `\n${WARNING_MARK}${d.message}`);
  return {
    subject,
    rule,
    reason:
      `Load the instructions of "${skill.name}" from ${location} (SKILL.md, ${formatBytes(skill.size)}), asked because of the ${access.permissionReason}.` +
      (changed ? ' Its server changed its files since it was activated in this chat.' : '') +
      (allowedTools ? ` Its allowed-tools say "${allowedTools}": shown only, this grants nothing by itself.` : '') +
      (dynamic ? ` ${NO_STANDING_GRANT}` : '') +
      warnings.join(''),
    version,
    always: !dynamic,
  };
}
