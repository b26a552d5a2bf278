/**
 * Who may activate a skill without asking. The operator decides, in the config: glob rules first
 * (`"pdf-*": "ask"`), else a default per source. Nothing in a skill's own folder is consulted, so a skill can never
 * grant itself more (`allowed-tools` in its frontmatter is shown to people, never obeyed).
 */
import path from 'node:path';
import type { AppConfig, Permission, PermissionsConfig } from '../config';
import { isPersonalSkillRoot } from '../skills/personal-root';
import type { RootKind, Skill } from '../skills/types';
import { compileGlobRules } from './globs';

/** `personal`: a person's own skill, installed on /settings (server/install/personal.ts). */
export type PermissionSource = RootKind | 'parent-agents' | 'personal';

/**
 * Skills the operator put next to the app, or in their own home, are trusted; skills picked up from `.agents/skills`
 * in a folder above the app (a cloned repository, a shared drive) ask first.
 */
export const DEFAULT_PERMISSIONS: Record<PermissionSource, Permission> = {
  app: 'allow',
  agents: 'allow',
  'parent-agents': 'ask',
  'user-agents': 'allow',
  'user-skillchat': 'allow',
  configured: 'allow',
  // The operator configured the server, as they would a root; `permissions.rules` over `label:*` say otherwise.
  mcp: 'allow',
  // Checked as an operator's install is, and used only by the person who installed it, as the install root's are.
  personal: 'allow',
};

export interface ResolvedPermission {
  permission: Permission;
  /** Why, for people: `rule "pdf-*"` or `default for .agents/skills in a parent folder`. */
  reason: string;
}

const SOURCE_LABELS: Record<PermissionSource, string> = {
  app: "the app's .skills folder",
  agents: "the app's .agents/skills (or .claude/skills) folder",
  'parent-agents': '.agents/skills in a parent folder',
  'user-agents': '~/.agents/skills (or ~/.claude/skills)',
  'user-skillchat': '~/.skillchat/skills',
  configured: 'a configured root',
  mcp: 'skills served by an MCP server',
  personal: "a person's own skills",
};

type PolicyConfig = Pick<AppConfig, 'roots' | 'appDir'> & { install?: Pick<AppConfig['install'], 'root'> };

export function permissionSource(skill: Pick<Skill, 'root' | 'origin'>, config: PolicyConfig): PermissionSource {
  if (skill.origin?.kind === 'mcp') return 'mcp';
  const root = config.roots.find((r) => r.path === skill.root);
  if (!root) return config.install && isPersonalSkillRoot(config.install.root, skill.root) ? 'personal' : 'configured';
  // `.agents/skills` or `.claude/skills` directly in the app folder is the app's own; higher up it is a parent's.
  if (root.kind === 'agents' && path.dirname(path.dirname(root.path)) !== path.resolve(config.appDir)) {
    return 'parent-agents';
  }
  return root.kind;
}

export interface PermissionPolicy {
  resolve(skill: Pick<Skill, 'name' | 'root' | 'origin'>): ResolvedPermission;
}

export function createPermissionPolicy(config: PolicyConfig & { permissions: PermissionsConfig }): PermissionPolicy {
  const rules = compileGlobRules(config.permissions.rules);
  const defaults = { ...DEFAULT_PERMISSIONS, ...config.permissions.defaults };
  // One answer per reason (a rule, or a source's default), shared by the skills it holds for: 10,000 records, a
  // handful of answers. The reason names what gives the permission, so it keys the answer.
  const answers = new Map<string, ResolvedPermission>();
  const answer = (permission: ResolvedPermission['permission'], reason: string) => {
    let known = answers.get(reason);
    if (!known) {
      known = { permission, reason };
      answers.set(reason, known);
    }
    return known;
  };
  return {
    resolve(skill) {
      const rule = rules(skill.name);
      if (rule) return answer(rule.value, `rule "${rule.pattern}"`);
      const source = permissionSource(skill, config);
      return answer(defaults[source], `default for ${SOURCE_LABELS[source]}`);
    },
  };
}
