/**
 * The permissions section of /admin: the "always allow" grants in force (each checked against its skill's files as
 * they are now), the newest approval decisions and script runs, with the title of the chat each came from.
 */
import { skillContentHash } from '../access/content-hash';
import { storedLabel } from '../consent/subjects';
import { type Database, getChat, listDecisions, listGrants, listScriptRuns, type PermissionDecision } from '../db';
import type { RunKind } from '../db/schema';
import type { Skill } from '../skills/types';

/** An unrevoked "always allow", tied to the version it was given for. */
export interface AdminGrant {
  id: number;
  /** The subject's kind as stored (a kind this version does not know is shown by its label alone). */
  kind: string;
  /** Whose standing grant it is (a person's shell grant); null for a grant that holds for everyone. */
  userId: string | null;
  /** The subject's name on the page: a skill's name, `mcp:<label>/<tool>` for an MCP tool. */
  skillName: string;
  contentHash: string;
  grantedAt: number;
  /** Whether the skill's files still hash to the granted content; null when the skill is not loaded (or not a skill). */
  current: boolean | null;
}

/** A chat a log row links to; the title is null once the chat was deleted. */
interface ChatLink {
  chatId: string | null;
  chatTitle: string | null;
}

export interface AdminDecision extends ChatLink {
  id: number;
  at: number;
  skillName: string;
  decision: PermissionDecision;
}

export interface AdminScriptRun extends ChatLink {
  id: number;
  at: number;
  /** A skill's script, or a shell command (its command line in `script`, `skillName` the skills active then). */
  kind: RunKind;
  /** Whose chat it ran in; null for rows older than per-person data. */
  userId: string | null;
  skillName: string;
  script: string;
  args: string[];
  /** Null when the sandbox stopped the script before it exited. */
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
}

export interface AdminPermissions {
  grants: AdminGrant[];
  decisions: AdminDecision[];
  scriptRuns: AdminScriptRun[];
}

export const NO_PERMISSIONS: AdminPermissions = { grants: [], decisions: [], scriptRuns: [] };

/** Newest approval decisions and script runs shown on the page. */
export const PERMISSION_LOG_LIMIT = 100;

export async function loadPermissionData(db: Database, skills: readonly Skill[]): Promise<AdminPermissions> {
  const [grantRows, decisionRows, runRows] = [
    await listGrants(db),
    await listDecisions(PERMISSION_LOG_LIMIT, db),
    await listScriptRuns(PERMISSION_LOG_LIMIT, db),
  ];
  const titles = new Map<string, string | null>();
  for (const chatId of new Set([...decisionRows, ...runRows].map((r) => r.chatId))) {
    if (chatId !== null) titles.set(chatId, (await getChat(chatId, db))?.title ?? null);
  }
  const link = (chatId: string | null): ChatLink =>
    chatId === null ? { chatId, chatTitle: null } : { chatId, chatTitle: titles.get(chatId) ?? null };
  const byName = new Map(skills.map((s) => [s.name, s]));
  const hashes = new Map<string, Promise<string | null>>();
  const currentHash = (name: string) => {
    const skill = byName.get(name);
    if (!skill) return Promise.resolve(null);
    if (!hashes.has(name))
      hashes.set(
        name,
        skillContentHash(skill).catch(() => null),
      );
    return hashes.get(name)!;
  };
  const grants = await Promise.all(
    grantRows.map(async (g): Promise<AdminGrant> => {
      const stored = { kind: g.subjectKind, key: g.subject };
      const hash = g.subjectKind === 'skill' ? await currentHash(g.subject) : null;
      return {
        id: g.id,
        kind: g.subjectKind,
        userId: g.userId,
        skillName: storedLabel(stored),
        contentHash: g.contentHash,
        grantedAt: g.grantedAt.getTime(),
        current: hash === null ? null : hash === g.contentHash,
      };
    }),
  );
  return {
    grants,
    decisions: decisionRows.map((d) => ({
      id: d.id,
      at: d.at.getTime(),
      skillName: storedLabel({ kind: d.subjectKind, key: d.subject }),
      decision: d.decision,
      ...link(d.chatId),
    })),
    scriptRuns: runRows.map((r) => ({
      id: r.id,
      at: r.at.getTime(),
      kind: r.kind,
      userId: r.userId,
      skillName: r.skillName,
      script: r.script,
      args: r.args,
      exitCode: r.exitCode,
      timedOut: r.timedOut,
      durationMs: r.durationMs,
      ...link(r.chatId),
    })),
  };
}
