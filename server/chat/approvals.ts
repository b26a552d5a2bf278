/**
 * Consent for skills under the `ask` policy, with the AI SDK's tool approval: the activation waits on the card until
 * the person answers. Explicit `/name` counts as consent for that activation; "always allow" is a grant tied to the
 * skill's content hash, so an edit to SKILL.md or a script brings the prompt back.
 */
import type { ToolApprovalStatus } from 'ai';
import { refusal } from '../access/access';
import { skillContentHash } from '../access/content-hash';
import type { AccessResolver } from '../access/resolver';
import { AppError } from '../errors';
import type { McpTurnTools } from '../mcp/tools';
import type { ShellMode } from '../sandbox/config';
import { type DisplayContext, displaySkillLocation } from '../skills/display';
import type { Skill } from '../skills/types';
import { needsConsent, shellApproval } from '../tools';
import { NO_STANDING_GRANT, TOOL_SHELL } from '../tools/names';
import type { ChatStore } from './store';
import type { ApprovalAnswer, ChatMessage } from './types';

export interface ApprovalContext {
  chatId: string;
  skills: ReadonlyMap<string, Skill>;
  access: Pick<AccessResolver, 'settleConsent'>;
  store: Pick<ChatStore, 'hasGrant' | 'addGrant' | 'recordDecision'>;
  display: DisplayContext;
  activated: ReadonlySet<string>;
  explicitSkills?: readonly string[];
  /** The person's shell mode this turn (server/sandbox/shell.ts). */
  shell?: ShellMode;
  /** This turn's MCP tools: their rules ask per call (server/mcp/tools.ts). */
  mcp?: Pick<McpTurnTools, 'approval' | 'grantFor'> | null;
}

/** Starts a warning line in an approval's reason (hidden text in the skill); the card renders those lines apart. */
export const WARNING_MARK = '⚠ ';

/** Diagnostics about what the skill would put in front of the model: the person deciding should see them. */
const WARNED_CODES: ReadonlySet<string> = new Set(['hidden-text', 'instruction-like-description']);

function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

/** Decides, per tool call, whether the person must answer first. */
export function createToolApproval(ctx: ApprovalContext) {
  return async ({ toolCall }: { toolCall: { toolName: string; input: unknown } }): Promise<ToolApprovalStatus> => {
    const mcp = ctx.mcp?.approval(toolCall.toolName, (key, hash) => ctx.store.hasGrant(key, hash));
    if (mcp) return mcp;
    if (!needsConsent(toolCall.toolName)) return undefined;
    if (toolCall.toolName === TOOL_SHELL) return shellApproval(ctx.shell);
    const name = (toolCall.input as { name?: unknown }).name;
    const skill = typeof name === 'string' ? ctx.skills.get(name) : undefined;
    if (!skill) return undefined; // The tool reports the unknown name itself.
    const how = ctx.explicitSkills?.includes(skill.name) ? 'explicit' : 'model';
    // Activating again in the same chat asks nothing new, so the grant (a hash of the files) is not looked up then.
    const access = await ctx.access.settleConsent(skill, how, async () =>
      ctx.activated.has(skill.name) ? false : ctx.store.hasGrant(skill.name, await skillContentHash(skill)),
    );
    if (access.permission === 'deny') return { type: 'denied', reason: refusal(access, how)! };
    if (access.consent === 'none' || ctx.activated.has(skill.name)) return undefined;
    if (access.consent === 'granted') {
      return {
        type: 'approved',
        reason:
          how === 'explicit' ? 'Invoked by the person with /name.' : 'Always allowed for this version of the skill.',
      };
    }
    const location = displaySkillLocation(skill, ctx.display);
    const allowedTools = skill.frontmatter['allowed-tools'];
    // Each warning is its own `⚠ ` line: the approval card shows those lines as warnings (approval.tsx).
    const warnings = skill.diagnostics
      .filter((d) => WARNED_CODES.has(d.code))
      .map((d) => `\n${WARNING_MARK}${d.message}`);
    return {
      type: 'user-approval',
      reason:
        `Load the instructions of "${skill.name}" from ${location} (SKILL.md, ${formatBytes(skill.size)}), asked because of the ${access.permissionReason}.` +
        (allowedTools ? ` Its allowed-tools say "${allowedTools}": shown only, this grants nothing by itself.` : '') +
        (skill.origin?.dynamic ? ` ${NO_STANDING_GRANT}` : '') +
        warnings.join(''),
    };
  };
}

type ApprovalPart = {
  type: string;
  state: string;
  toolCallId: string;
  input?: unknown;
  approval?: { id: string; approved?: boolean; reason?: string };
};

function isApprovalPart(part: ChatMessage['parts'][number]): part is ChatMessage['parts'][number] & ApprovalPart {
  return (
    (part.type.startsWith('tool-') || part.type === 'dynamic-tool') && 'approval' in part && part.approval !== undefined
  );
}

/**
 * Applies a person's answers to the pending approvals of the stored last answer, records the decisions and grants,
 * and returns the updated message. Unknown or already answered approvals are a 409: nothing is changed.
 */
export async function applyApprovals(
  message: ChatMessage | undefined,
  answers: readonly ApprovalAnswer[],
  ctx: ApprovalContext,
): Promise<ChatMessage> {
  if (message?.role !== 'assistant') {
    throw new AppError('conflict:chat', 'There is no answer waiting for approval in this chat');
  }
  const pending = new Map(
    message.parts
      .filter(isApprovalPart)
      .filter((p) => p.state === 'approval-requested')
      .map((p) => [p.approval!.id, p]),
  );
  for (const answer of answers) {
    if (!pending.has(answer.approvalId)) {
      throw new AppError('conflict:chat', `No approval "${answer.approvalId}" is waiting in this chat`);
    }
  }
  const byId = new Map(answers.map((a) => [a.approvalId, a]));
  const parts = await Promise.all(
    message.parts.map(async (part) => {
      if (!isApprovalPart(part) || part.state !== 'approval-requested') return part;
      const answer = byId.get(part.approval!.id);
      if (!answer) return part;
      const decision = !answer.approved ? 'denied' : answer.always ? 'always' : 'allowed';
      // An MCP tool's decision and grant are keyed `mcp:<label>/<tool>`, tied to the tool's definition.
      const mcp = 'toolName' in part && typeof part.toolName === 'string' ? ctx.mcp?.grantFor(part.toolName) : null;
      if (mcp) {
        if (decision === 'always') await ctx.store.addGrant(mcp.key, mcp.hash);
        await ctx.store.recordDecision({ chatId: ctx.chatId, skillName: mcp.key, decision, contentHash: mcp.hash });
      }
      const name = (part.input as { name?: unknown } | undefined)?.name;
      const skill = mcp ? undefined : typeof name === 'string' ? ctx.skills.get(name) : undefined;
      if (skill) {
        const contentHash = await skillContentHash(skill);
        // A dynamic served skill never gets a standing grant: its content cannot be pinned down.
        if (decision === 'always' && !skill.origin?.dynamic) await ctx.store.addGrant(skill.name, contentHash);
        await ctx.store.recordDecision({ chatId: ctx.chatId, skillName: skill.name, decision, contentHash });
      }
      return {
        ...part,
        state: 'approval-responded',
        approval: {
          ...part.approval!,
          approved: answer.approved,
          ...(answer.approved ? {} : { reason: 'The person denied this.' }),
        },
      } as ChatMessage['parts'][number];
    }),
  );
  return { ...message, parts };
}
