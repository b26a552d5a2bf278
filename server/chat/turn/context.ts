/**
 * The turn's context, built once before anything is written: the chat's stored messages, the skills it may use this
 * turn (the skill view), the skills already active, and the person's `/name` invocation with its refusal, checked
 * here once. Every later step reads this record; none of it is assigned after it is built.
 */
import type { UIMessageStreamWriter } from 'ai';
import { refusal } from '../../access/access';
import type { SkillHosts } from '../../egress/grants';
import { type McpTurnTools, mcpTurnTools } from '../../mcp/tools';
import type { DisplayContext } from '../../skills/display';
import { parseInvocations } from '../../skills/invocation';
import type { ActivationHow, SkillToolContext } from '../../tools';
import type { ApprovalContext } from '../approvals';
import { createElicitationDesk, type ElicitationDesk } from '../elicitations';
import { messageText } from '../request';
import type { ActiveTurn } from '../running/active-turns';
import { buildSkillView, type SkillView } from '../skill-view';
import type { ChatMessage, ChatRequestBody } from '../wire-types';
import type { TurnDeps } from './deps';
import { turnEgress, turnUngrantedHosts } from './egress';

/** A `/name` (or `/a /b`) the person typed, checked against each skill's access record once. */
export interface Invocation {
  names: string[];
  /** What followed the names: the message the model answers, and the skills' `$ARGUMENTS`. */
  rest: string;
  /** Why each refused name may not be invoked (`refusal(access, 'explicit')`); a name not here may be. */
  refusals: ReadonlyMap<string, string>;
}

export interface TurnContext {
  body: ChatRequestBody;
  deps: TurnDeps;
  chatId: string;
  /** The chat's slot in the running-turns table: its controller is what Stop aborts. */
  slot: ActiveTurn;
  /** The chat's messages as stored before this turn. */
  stored: ChatMessage[];
  /** The first exchange of a chat (a real model names the chat after it). */
  firstExchange: boolean;
  view: SkillView;
  /** Names active in this chat; activations during the turn add to it. */
  activated: Set<string>;
  /** The version each activation was approved under (server/tools/served-pin.ts). */
  pins: Map<string, string | null>;
  display: DisplayContext;
  /** Null for an approval answer (it continues an answer) and for a message without a leading `/name`. */
  invocation: Invocation | null;
  /** The MCP servers connected at this moment: one that is down or slow is left out, never waited for. */
  mcp: McpTurnTools | null;
  /** The MCP servers' questions to the person during this turn's calls; the slot holds it for the answer's route. */
  elicitations: ElicitationDesk;
  /**
   * The declared hosts each tool call's consent covered, by tool call id (chat/approvals.ts writes, the call's run
   * reads): filled as the turn's calls pass consent.
   */
  approvedNetwork: Map<string, readonly SkillHosts[]>;
}

export async function loadTurnContext(body: ChatRequestBody, deps: TurnDeps, slot: ActiveTurn): Promise<TurnContext> {
  const { store, config } = deps;
  const { chatId } = body;
  const stored = await store.getMessages(chatId);
  const firstUser = stored.find((m) => m.role === 'user') ?? body.message;
  const view = await buildSkillView({
    source: { ...deps.skills, access: deps.access.resolveAll(deps.skills.skills, deps.personal) },
    config,
    contextWindow: deps.model.contextWindow,
    chatId,
    relevanceText: firstUser ? messageText(firstUser) : '',
  });
  // Skills are activated by a chat's turns after its first message is stored: a chat with none has none active.
  const activations = stored.length === 0 ? [] : await store.getActivations(chatId);
  const activated = new Set(activations.map((a) => a.name));
  const pins = new Map(activations.map((a) => [a.name, a.version]));
  const elicitations = createElicitationDesk(slot.controller.signal);
  slot.elicitations = elicitations;
  const mcp = deps.mcp
    ? mcpTurnTools(deps.mcp, {
        switchedOff: deps.mcpSwitchedOff,
        signal: slot.controller.signal,
        elicit: (request, signal) => elicitations.ask(request, signal),
      })
    : null;
  return {
    body,
    deps,
    chatId,
    slot,
    stored,
    firstExchange: body.trigger === 'submit-message' && stored.length === 0,
    view,
    activated,
    pins,
    display: { appDir: config.appDir, home: config.home },
    invocation: readInvocation(body, stored, view),
    mcp,
    elicitations,
    approvedNetwork: new Map(),
  };
}

/**
 * The `/name` invocation of the message this turn answers: the message sent (or edited), or for Regenerate the
 * last stored one from the person. An approval answer continues an answer and invokes nothing.
 */
function readInvocation(body: ChatRequestBody, stored: ChatMessage[], view: SkillView): Invocation | null {
  if (body.trigger === 'approval-response') return null;
  const asked = body.trigger === 'submit-message' ? body.message : stored.findLast((m) => m.role === 'user');
  const parsed = parseInvocations(messageText(asked ?? { parts: [] }), (name) => view.all.has(name));
  if (!parsed) return null;
  const refusals = new Map<string, string>();
  for (const name of parsed.names) {
    const refused = refusal(view.access.get(name)!, 'explicit');
    if (refused) refusals.set(name, refused);
  }
  return { names: parsed.names, rest: parsed.rest, refusals };
}

/** The first refusal of the invocation: the server answers it instead of the model. */
export function firstRefusal(invocation: Invocation | null): string | null {
  return invocation ? (invocation.refusals.values().next().value ?? null) : null;
}

/** What the consent check (approvals.ts) reads: an approval answer now, and the model's tool calls later. */
export function approvalContext(turn: TurnContext): ApprovalContext {
  const { deps } = turn;
  return {
    chatId: turn.chatId,
    tools: {
      skills: turn.view.usable,
      access: turn.view.access,
      display: turn.display,
      activated: turn.activated,
      explicitSkills: turn.invocation?.names ?? [],
      shell: deps.shell,
      ungrantedHosts: turnUngrantedHosts(turn),
    },
    consent: deps.store.consent,
    mcp: turn.mcp,
    approvedNetwork: turn.approvedNetwork,
  };
}

/** What the skill tools work with; activations are stored and announced on the answer's stream. */
export function toolContext(turn: TurnContext, writer: UIMessageStreamWriter<ChatMessage>): SkillToolContext {
  const { deps, chatId, view, activated, pins } = turn;
  const { store, config } = deps;
  return {
    skills: view.usable,
    access: view.access,
    activationEnum: view.activationEnum,
    search: view.catalog && view.catalog.omitted > 0 ? { matcher: view.matcher } : null,
    activated,
    pins,
    limits: config.limits,
    display: turn.display,
    // Never a refused name: a refused invocation is answered by the server, without the tools.
    explicitSkills: turn.invocation?.names ?? [],
    explicitArguments: turn.invocation?.rest,
    onActivated: async (name: string, how: ActivationHow, version: string | null) => {
      pins.set(name, version);
      await store.recordActivation(chatId, name, how, version);
      writer.write({ type: 'data-activations', data: { names: [...activated].sort() } });
    },
    onScriptRun: (run) => store.recordScriptRun({ chatId, ...run }),
    signal: turn.slot.controller.signal,
    // Scripts run in this chat's workspace.
    chatId,
    execution: config.execution,
    shell: deps.shell,
    owner: deps.owner,
    egress: turnEgress(turn),
    ungrantedHosts: turnUngrantedHosts(turn),
    approvedNetwork: (toolCallId) => turn.approvedNetwork.get(toolCallId) ?? [],
  };
}

/** The answer this turn writes: under `id`, to `history`, with `metadata` on its start. */
export interface Answer {
  id: string;
  /** The messages answered (the stored history with the trigger applied). */
  history: ChatMessage[];
  metadata: ChatMessage['metadata'];
  /** An approval answer: the answer continues the last message instead of starting a new one. */
  continuing: boolean;
}
