/** Small status labels shared by the admin tables. */
import type { AdminDecision, SkillStatus } from '@/server/admin/overview';
import type { Permission } from '@/server/config';
import type { Severity } from '@/server/skills/types';

const STATUS_LABEL: Record<SkillStatus, string> = { ok: 'ok', warnings: 'warnings', 'not-loaded': 'not loaded' };

export function StatusBadge({ status, testId }: { status: SkillStatus; testId?: string }) {
  return (
    <span className={`pill pill--${status}`} data-testid={testId} data-status={status}>
      {STATUS_LABEL[status]}
    </span>
  );
}

export function SeverityBadge({ severity }: { severity: Severity }) {
  return (
    <span className={`pill pill--${severity}`} data-testid="severity">
      {severity}
    </span>
  );
}

export function ScopeLabel({ scope }: { scope: 'project' | 'user' }) {
  return <span className={`scope scope--${scope}`}>{scope}</span>;
}

/** A skill's permission under the operator's policy; the reason (`rule "pdf-*"`, a default) rides along. */
export function PermissionBadge({ permission, testId }: { permission: Permission; testId?: string }) {
  return (
    <span className={`pill pill--perm-${permission}`} data-testid={testId} data-permission={permission}>
      {permission}
    </span>
  );
}

type Decision = AdminDecision['decision'];

const DECISION_LABEL: Record<Decision, string> = {
  allowed: 'allowed once',
  always: 'always allowed',
  denied: 'denied',
};

export function DecisionBadge({ decision }: { decision: Decision }) {
  return (
    <span className={`pill pill--decision-${decision}`} data-testid="decision" data-decision={decision}>
      {DECISION_LABEL[decision]}
    </span>
  );
}
