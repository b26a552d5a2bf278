/** Small status labels shared by the admin tables. */
import type { SkillStatus } from '@/server/admin/overview';
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
