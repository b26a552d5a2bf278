/**
 * The grant of one run: which host:ports its skills may reach and which headers the proxy adds there.
 *
 * Attribution: a script of a skill (`skills_runScript`) runs with exactly that skill; a shell command
 * (`sandbox_exec`) with the chat's active skills, and gets the union of their grants. A command cannot be told
 * apart by what it runs, and letting the model name the skill narrows nothing against a hostile prompt, so each
 * allowed request is attributed to the skills whose grant matched it (the record names them).
 *
 * A declaration (declarations.ts) grants nothing, with one exception the person controls: a skill whose permission
 * is `ask` may reach a host it declares once the person approves it (`approved`), and until then the request
 * `needs-approval`.
 *
 * Package installs (`runtime.installs: allow`) are no skill's: every run reaches the package indexes, as the
 * pseudo-skill `(installs)`, GET and HEAD only.
 */
import { skillGlob } from '../access/globs';
import type { RunSecret as ResolvedSecret } from '../secrets/resolve';
import type { EgressConfig } from './config';
import type { SkillDeclarations } from './declarations';
import { formatTarget, type HostPattern, matches, parsePattern } from './patterns';
import type { EgressDecision, EgressTarget } from './types';

export type SkillPermission = 'allow' | 'ask' | 'deny';

/**
 * The pseudo-skill every run of a chat has with `runtime.installs: allow`: the package indexes, GET and HEAD only
 * (a PUT to an npm registry publishes; nothing a run sends there should be more than a request for a package).
 */
export const INSTALLS_SKILL = '(installs)';

export interface RunSkill {
  name: string;
  /** What an "Always allow" is bound to (access/content-hash.ts). */
  contentHash?: string;
  declares: Pick<SkillDeclarations, 'network' | 'secrets'>;
}

/** A secret as the run may use it, its value already resolved for the run's person (`resolveRunSecrets`). */
export type RunSecret = Omit<ResolvedSecret, 'personal'>;

export interface RunGrantInput {
  config: EgressConfig;
  skills: RunSkill[];
  /** Each skill's permission (access/); a skill missing here counts as `allow`. */
  permission: (skill: string) => SkillPermission;
  /** Whether the person approved this skill reaching this declared target (the approval card's answer). */
  approved?: (skill: RunSkill, target: EgressTarget) => boolean;
  secrets: RunSecret[];
  /** `host:port` patterns of the package indexes (runtime.installs `allow`): read-only, for every run. */
  installs?: readonly string[];
}

export interface RunGrant {
  decide(target: EgressTarget): EgressDecision;
}

function parseAll(texts: readonly string[]): HostPattern[] {
  return texts.flatMap((text) => {
    const parsed = parsePattern(text);
    return parsed.ok ? [parsed.pattern] : [];
  });
}

/** The patterns `network.skills` grants a skill: the union over every glob that matches its name. */
export function grantedPatterns(config: EgressConfig, skill: string): HostPattern[] {
  return Object.entries(config.network.skills).flatMap(([glob, hosts]) =>
    skillGlob(glob)(skill) ? parseAll(hosts) : [],
  );
}

/** Every malformed host pattern in `network.skills` and the secrets' `hosts`, for the config check. */
export function configPatternProblems(config: EgressConfig): string[] {
  const problems: string[] = [];
  for (const [glob, hosts] of Object.entries(config.network.skills)) {
    for (const text of hosts) {
      const parsed = parsePattern(text);
      if (!parsed.ok) problems.push(`network.skills["${glob}"]: ${parsed.problem}`);
    }
  }
  for (const [name, secret] of Object.entries(config.secrets)) {
    for (const text of secret.hosts) {
      const parsed = parsePattern(text);
      if (!parsed.ok) problems.push(`secrets.${name}.hosts: ${parsed.problem}`);
    }
  }
  return problems;
}

function listNames(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? '';
  return `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/** `Authorization: Bearer {}` with the value in place of `{}`, as a header name and value. */
function headerLine(template: string, value: string): [string, string] {
  const colon = template.indexOf(':');
  return [
    template.slice(0, colon).trim(),
    template
      .slice(colon + 1)
      .trim()
      .replaceAll('{}', value),
  ];
}

export function createRunGrant(input: RunGrantInput): RunGrant {
  const usable = input.skills.filter((skill) => input.permission(skill.name) !== 'deny');
  const granted = usable.map((skill) => ({ skill, patterns: grantedPatterns(input.config, skill.name) }));
  const secrets = input.secrets.map((secret) => ({
    secret,
    hosts: parseAll(secret.hosts),
    skills: secret.skills.map(skillGlob),
  }));
  const active = input.skills.map((skill) => skill.name);
  const indexes = parseAll(input.installs ?? []);

  /** Allowed for `skills`, with the headers of the secrets that apply to them there (or the missing one). */
  const allow = (target: EgressTarget, skills: string[]): EgressDecision => {
    const headers: Record<string, string> = {};
    for (const { secret, hosts, skills: globs } of secrets) {
      if (!hosts.some((p) => matches(p, target))) continue;
      if (!skills.some((name) => globs.some((glob) => glob(name)))) continue;
      if (secret.value === null) {
        return {
          allow: false,
          code: 'secret-missing',
          reason: secret.missing ?? `${formatTarget(target)} needs the secret ${secret.name}, which is not set.`,
          skills,
        };
      }
      if (secret.header) {
        const [name, value] = headerLine(secret.header, secret.value);
        headers[name] = value;
      }
    }
    return Object.keys(headers).length > 0 ? { allow: true, skills, headers } : { allow: true, skills };
  };

  return {
    decide(target) {
      const matched = granted.filter((g) => g.patterns.some((p) => matches(p, target))).map((g) => g.skill.name);
      if (matched.length > 0) return allow(target, matched);
      // After the skills' own grants: a skill granted an index host keeps what it was granted there.
      if (indexes.some((p) => matches(p, target))) return { allow: true, skills: [INSTALLS_SKILL], limited: true };

      const asking = usable.filter(
        (skill) => input.permission(skill.name) === 'ask' && skill.declares.network.some((p) => matches(p, target)),
      );
      const approved = asking.filter((skill) => input.approved?.(skill, target) ?? false).map((s) => s.name);
      if (approved.length > 0) return allow(target, approved);
      if (asking.length > 0) {
        const names = asking.map((s) => s.name);
        return {
          allow: false,
          code: 'needs-approval',
          reason: `${formatTarget(target)} is declared by ${listNames(names)} but not granted; it needs the person's approval.`,
          skills: names,
        };
      }
      return {
        allow: false,
        code: 'not-granted',
        reason:
          active.length > 0
            ? `${formatTarget(target)} is not granted to ${listNames(active)}.`
            : `${formatTarget(target)} is not granted: no skill is active in this chat.`,
        skills: active,
      };
    },
  };
}

/**
 * What one skill under `ask` declares and the operator has not granted, one `host:port` per port (a declared pattern
 * without a port is two: 443 and 80; a wildcard stays the pattern, `*.example.org:443`), sorted. It is what the
 * approval card names and what an approved call may reach.
 */
export interface SkillHosts {
  skill: string;
  hosts: string[];
}

/** A pattern's text for one of its ports: `api.github.com:443`, `*.example.org:80`, `[::1]:8080`. */
function portText(pattern: HostPattern, port: number): string {
  const host = pattern.subdomains ? `*.${pattern.host}` : pattern.host;
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * For each skill whose permission is `ask`, the declared targets its grants do not cover (none: left out). A skill
 * under `allow` or `deny` is never asked about: a declaration grants it nothing, and the person cannot change that.
 */
export function ungrantedHosts(
  config: EgressConfig,
  skills: ReadonlyArray<Pick<RunSkill, 'name' | 'declares'>>,
  permission: (skill: string) => SkillPermission,
): SkillHosts[] {
  const asks: SkillHosts[] = [];
  for (const skill of skills) {
    if (permission(skill.name) !== 'ask' || skill.declares.network.length === 0) continue;
    const granted = grantedPatterns(config, skill.name);
    const hosts = new Set<string>();
    for (const declared of skill.declares.network) {
      for (const port of declared.ports) {
        const one = { ...declared, ports: [port] };
        if (!granted.some((g) => covers(g, one))) hosts.add(portText(declared, port));
      }
    }
    if (hosts.size > 0) asks.push({ skill: skill.name, hosts: [...hosts].sort() });
  }
  return asks;
}

/**
 * The run-time side of an approval: whether `target` is one of the hosts the person approved for `skill` (the
 * `SkillHosts` the call's approval named). Nothing else is: a host the skill does not declare, or one declared after
 * the card was shown, still needs approval.
 */
export function approvedTargets(
  approved: readonly SkillHosts[],
): (skill: Pick<RunSkill, 'name'>, target: EgressTarget) => boolean {
  const bySkill = new Map(approved.map((a) => [a.skill, parseAll(a.hosts)]));
  return (skill, target) => bySkill.get(skill.name)?.some((p) => matches(p, target)) ?? false;
}

/** One host row of a skill's summary: declared, granted, or both. */
export interface HostGrantRow {
  pattern: string;
  declared: boolean;
  granted: boolean;
}

export interface SecretGrantRow {
  name: string;
  declared: boolean;
  granted: boolean;
  /** Granted and configured with a header (the run never sees it) or as a variable. */
  mode?: 'header' | 'env';
}

export interface GrantSummary {
  skill: string;
  hosts: HostGrantRow[];
  secrets: SecretGrantRow[];
  /** Malformed entries of its declarations. */
  problems: string[];
}

/** Whether `wide` covers every host and port `narrow` does. */
function covers(wide: HostPattern, narrow: HostPattern): boolean {
  if (!narrow.ports.every((port) => wide.ports.includes(port))) return false;
  if (!wide.subdomains) return !narrow.subdomains && wide.host === narrow.host;
  // `*.x.y` covers `a.x.y`, `*.a.x.y` and itself.
  return narrow.host.endsWith(`.${wide.host}`) || (narrow.subdomains && narrow.host === wide.host);
}

/** What a skill declares beside what the config grants it, for /admin. */
export function grantSummary(
  config: EgressConfig,
  skill: { name: string; declares: SkillDeclarations | Pick<SkillDeclarations, 'network' | 'secrets'> },
): GrantSummary {
  const declared = skill.declares.network;
  const granted = grantedPatterns(config, skill.name);
  const hosts: HostGrantRow[] = declared.map((d) => ({
    pattern: d.text,
    declared: true,
    granted: granted.some((g) => covers(g, d)),
  }));
  // What the rows so far show as reachable: a grant inside it adds nothing; a grant of one port of a declared host
  // that is not wholly granted is a row of its own.
  const shown = declared.filter((_, i) => hosts[i]?.granted);
  for (const g of granted) {
    if (declared.some((d) => covers(g, d)) || shown.some((p) => covers(p, g))) continue;
    shown.push(g);
    hosts.push({ pattern: g.text, declared: declared.some((d) => covers(d, g)), granted: true });
  }

  const grantedSecrets = Object.entries(config.secrets).filter(([, s]) =>
    s.skills.some((g) => skillGlob(g)(skill.name)),
  );
  const secrets: SecretGrantRow[] = skill.declares.secrets.map((name) => {
    const entry = grantedSecrets.find(([n]) => n === name);
    return entry
      ? { name, declared: true, granted: true, mode: entry[1].header ? 'header' : 'env' }
      : { name, declared: true, granted: false };
  });
  for (const [name, s] of grantedSecrets) {
    if (!skill.declares.secrets.includes(name)) {
      secrets.push({ name, declared: false, granted: true, mode: s.header ? 'header' : 'env' });
    }
  }
  const problems =
    'networkProblems' in skill.declares ? [...skill.declares.networkProblems, ...skill.declares.secretProblems] : [];
  return { skill: skill.name, hosts, secrets, problems };
}
