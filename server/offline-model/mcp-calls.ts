/**
 * The offline model and MCP tools: a message of the form `mcp.<label>.<tool> {json arguments}` (the name the tool
 * card shows; the arguments may be left out) calls that tool once, and the answer reports what it returned. The
 * model finds the tool among the tools it is offered, as any model would: a tool of a server that is not connected,
 * denied by a rule or switched off is simply not there, and the answer says so.
 */
import { MCP_TOOL_PREFIX, toolDisplayName } from '../tools/names';
import type { PlannedCall } from './planner';
import type { PromptView, ToolExchange } from './prompt-reader';

export interface McpCallRequest {
  /** `mcp.<label>.<tool>` as typed. */
  displayName: string;
  args: Record<string, unknown> | null;
  /** Why the arguments could not be read. */
  argsError?: string;
}

const EXCERPT_LINES = 12;
const EXCERPT_CHARS = 2000;

/** The MCP call a message asks for, or null when it is not one. */
export function mcpCallIn(text: string): McpCallRequest | null {
  const m = /^\s*(mcp\.[a-z0-9][a-z0-9-]*\.[^\s{]+)\s*([\s\S]*)$/.exec(text);
  if (!m) return null;
  const displayName = m[1]!;
  const rest = m[2]!.trim();
  if (rest === '') return { displayName, args: {} };
  try {
    const args: unknown = JSON.parse(rest);
    if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
      return { displayName, args: args as Record<string, unknown> };
    }
    return { displayName, args: null, argsError: 'the arguments must be a JSON object, like {"text": "hi"}' };
  } catch (error) {
    return { displayName, args: null, argsError: `the arguments are not JSON (${(error as Error).message})` };
  }
}

/** The offered tool the request names (its wire name), if any. */
function offeredWireName(view: PromptView, request: McpCallRequest): string | null {
  for (const name of view.offeredTools) {
    if (name.startsWith(MCP_TOOL_PREFIX) && toolDisplayName(name) === request.displayName) return name;
  }
  return null;
}

/** The call to make now: the named tool, once per turn. */
export function plannedMcpCall(view: PromptView, request: McpCallRequest): PlannedCall | null {
  const wireName = offeredWireName(view, request);
  if (!wireName || request.args === null || view.turn.some((e) => e.toolName === wireName)) return null;
  return { toolName: wireName, input: request.args };
}

/** Why nothing was called, when the message asked for an MCP tool and no call was made. */
export function mcpNotCalled(view: PromptView, request: McpCallRequest): string {
  const name = `\`${request.displayName}\``;
  if (request.argsError) return `I did not call ${name}: ${request.argsError}.`;
  const available = [...view.offeredTools].filter((n) => n.startsWith(MCP_TOOL_PREFIX)).map(toolDisplayName);
  const list = available.length > 0 ? ` Available MCP tools: ${available.map((n) => `\`${n}\``).join(', ')}.` : '';
  return `I cannot call ${name}: it is not among my tools in this chat (its server is not connected, a rule denies it, or you switched the server off; /admin says which).${list}`;
}

function fence(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = '`'.repeat(Math.max(3, longest + 1));
  return `${f}\n${text}\n${f}`;
}

function excerpt(text: string): string {
  const lines = text.split(/\r?\n/);
  const shown = lines.slice(0, EXCERPT_LINES).join('\n').slice(0, EXCERPT_CHARS);
  return shown.length < text.length ? `${shown}\n…` : shown;
}

/** One MCP call and its result, in the answer. */
export function describeMcp(exchange: ToolExchange): string | null {
  const name = `\`${toolDisplayName(exchange.toolName)}\``;
  const outcome = exchange.outcome;
  switch (outcome.status) {
    case 'pending':
      return null;
    case 'denied':
      return `Calling ${name} was not approved${outcome.reason ? ` (${outcome.reason})` : ''}.`;
    case 'error':
      return `${name} failed: ${outcome.message.slice(0, 500)}`;
    case 'ok': {
      const value = (typeof outcome.value === 'object' && outcome.value !== null ? outcome.value : {}) as {
        text?: unknown;
        items?: unknown;
        structured?: unknown;
      };
      const parts = [`I called ${name}.`];
      const text = typeof value.text === 'string' ? value.text : '';
      if (text.trim()) parts.push(`It answered:\n\n${fence(excerpt(text))}`);
      else if (value.structured !== undefined) parts.push(`It answered:\n\n${fence(JSON.stringify(value.structured))}`);
      else parts.push('It answered with no text.');
      if (Array.isArray(value.items) && value.items.length > 0) parts.push(`Also: ${value.items.join('; ')}.`);
      return parts.join(' ');
    }
  }
}
