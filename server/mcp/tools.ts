/**
 * MCP tools in a turn: the tools of the servers connected when the turn starts (never waiting for one that is not),
 * less the ones a rule denies and the servers the person switched off, as AI SDK dynamic tools named
 * `mcp_<label>_<tool>`. Each call has the configured time limit and the turn's abort signal; its result is text the
 * model can read (capped, images and binary resources described, not inlined). An `isError` result, a timeout and a
 * lost connection end as tool errors whose message says which.
 *
 * Tool descriptions and results are the server's words: untrusted text, like a web page. Hidden characters are
 * removed (as from skills) and sizes capped; nothing in them changes a permission.
 */
import { dynamicTool, jsonSchema } from 'ai';
import { allowed, type ConsentAsk } from '../consent/ask';
import { stripHiddenDeep, stripHiddenText } from '../skills/load/hidden-text';
import type { McpConfig } from './config';
import type { ElicitAnswer, ElicitParams } from './elicitation';
import type { McpCallResult, McpManager, McpTool } from './manager';
import { McpNeedsConnectError, type PersonalMcpTools } from './people';
import { createMcpPolicy, type McpPermission, type McpPolicy } from './permissions';
import { mcpWireName } from './tool-names';

export interface McpToolOutput {
  server: string;
  tool: string;
  /** The text the server returned (text content and text resources), capped at `mcp.maxOutputBytes`. */
  text: string;
  truncated?: boolean;
  /** Images, audio, binary resources and links, described instead of inlined. */
  items?: string[];
  /** The server's structured result, when it sent one and it is small. */
  structured?: unknown;
  /**
   * The person has not connected this server (it signs each person in), or must connect again to grant `scopes`
   * the server asked for: the card offers Connect.
   */
  connect?: { server: string; scopes?: string[] };
}

const MAX_STRUCTURED = 16 * 1024;

export class McpToolError extends Error {
  override name = 'McpToolError';
  /** Its message quotes the server (a tool name, an error's text): hidden characters are removed here, once. */
  constructor(message: string) {
    super(stripHiddenText(message));
  }
  /** The AI SDK shows a tool error as `String(error)`: the message alone reads better on the card and to the model. */
  override toString(): string {
    return this.message;
  }
}

/** UTF-8 safe cut at `maxBytes`. */
function capText(text: string, maxBytes: number): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, truncated: false };
  const cut = bytes
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return { text: cut, truncated: true };
}

function approxBytes(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

/** A call's result as the card and the model read it. */
export function toOutput(label: string, tool: string, result: McpCallResult, maxBytes: number): McpToolOutput {
  const texts: string[] = [];
  const items: string[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        texts.push(block.text);
        break;
      case 'image':
      case 'audio':
        items.push(`${block.type} (${block.mimeType}, ${approxBytes(block.data)} bytes), not shown`);
        break;
      case 'resource': {
        const r = block.resource;
        if ('text' in r && typeof r.text === 'string') texts.push(`[resource ${r.uri}]\n${r.text}`);
        else items.push(`resource ${r.uri} (${r.mimeType ?? 'binary'}), not shown`);
        break;
      }
      case 'resource_link':
        items.push(`link to ${block.uri}${block.name ? ` (${block.name})` : ''}`);
        break;
      default:
        items.push(`${(block as { type: string }).type} content, not shown`);
    }
  }
  const { text, truncated } = capText(stripHiddenText(texts.join('\n\n')), maxBytes);
  const structured = result.structuredContent;
  const small = structured !== undefined && JSON.stringify(structured).length <= MAX_STRUCTURED;
  // Every string here is the server's (links' names, MIME types, structured content): cleaned at any depth.
  return stripHiddenDeep({
    server: label,
    tool,
    text: truncated ? `${text}\n[output truncated at ${maxBytes} bytes]` : text,
    ...(truncated ? { truncated } : {}),
    ...(items.length > 0 ? { items } : {}),
    ...(small && texts.length === 0 ? { structured } : {}),
  });
}

/** The first text of an `isError` result, for the error message. */
function errorMessage(label: string, tool: string, result: McpCallResult): string {
  const first = (result.content ?? []).find((b) => b.type === 'text');
  const said = first && first.type === 'text' ? stripHiddenText(first.text).trim().slice(0, 1000) : '';
  return `"${tool}" on the MCP server "${label}" reported an error${said ? `: ${said}` : ''}`;
}

export interface McpTurnTools {
  /** Dynamic tools by wire name; empty when no server is connected. */
  tools: Record<string, ReturnType<typeof dynamicTool>>;
  names: string[];
  /**
   * How a call of this tool asks for consent (server/consent/): the tool is the subject, its definition hash the
   * version, the operator's rule for it the rule. Undefined for a tool that is not an MCP tool of this turn.
   */
  consent(toolName: string): ConsentAsk | undefined;
}

export interface McpSource {
  manager: Pick<McpManager, 'connected' | 'call'>;
  config: McpConfig;
  /** Built from `config.rules` when absent. */
  policy?: McpPolicy;
  /** The asking person's view of the servers each person signs in to (people.ts `forPerson`). */
  person?: PersonalMcpTools;
}

/** A server's request for the person's input during one call of this turn (manager.ts `McpElicit`). */
export interface McpElicitation {
  toolCallId: string;
  server: string;
  tool: string;
  params: ElicitParams;
}

/**
 * The schema a model provider is given for a tool: the server's own, as it sent it (`$schema`, `$defs`, 2020-12
 * keywords), with the one change every provider needs, an object at the root. OpenAI's provider removes what OpenAI
 * refuses (`propertyNames`, lookaround patterns) itself; Anthropic and the OpenAI-compatible servers take it as is.
 */
export function modelInputSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return schema.type === 'object' ? schema : { ...schema, type: 'object' };
}

interface Offered {
  label: string;
  tool: McpTool;
  permission: McpPermission;
  /** Whose connection calls it: the app's (operator's server), the person's, or none yet (connect first). */
  via: 'app' | 'person' | 'connect';
}

/** What a tool of a server the person has not connected answers: not a failure, a step for the person. */
export function connectOutput(label: string, tool: string, scopes: string[] = []): McpToolOutput {
  if (scopes.length > 0) {
    return {
      server: label,
      tool,
      text:
        `The MCP server "${label}" needs more permission for ${tool} than this person granted: they must connect ` +
        `again to grant ${scopes.join(' ')}. Nothing is broken: ask them to press Connect on the card shown here, ` +
        `then try again.`,
      connect: { server: label, scopes },
    };
  }
  return {
    server: label,
    tool,
    text:
      `The MCP server "${label}" signs in each person, and this person has not connected it yet (or their ` +
      `connection ended). Nothing is broken: ask them to press Connect on the card shown here (or on Settings), ` +
      `then try again.`,
    connect: { server: label },
  };
}

/** A stand-in tool for a server the person has not connected and whose tools nobody has listed yet. */
function placeholderTool(label: string): McpTool {
  return {
    name: 'connect',
    wireName: mcpWireName(label, 'connect'),
    description: `Connect to use: the MCP server "${label}" needs this person to sign in before its tools are available. Call this when the person asks for something "${label}" does.`,
    inputSchema: { type: 'object', properties: {} },
    definitionHash: '',
  };
}

/** The MCP tools of one turn. */
export function mcpTurnTools(
  source: McpSource,
  /**
   * `switchedOff`: the labels of the servers the person switched off for themselves. `elicit`: how a server's
   * request for input during a call is answered (the turn asks the person); without it such requests are declined.
   */
  options: {
    switchedOff?: ReadonlySet<string>;
    signal?: AbortSignal;
    elicit?: (request: McpElicitation, signal: AbortSignal) => Promise<ElicitAnswer>;
  },
): McpTurnTools {
  const policy = source.policy ?? createMcpPolicy(source.config.rules);
  const offered = new Map<string, Offered>();
  for (const server of source.manager.connected()) {
    if (options.switchedOff?.has(server.label)) continue;
    for (const tool of server.tools) {
      const permission = policy(server.label, tool.name);
      // Denied tools are not offered at all: the model never sees their names or descriptions.
      if (permission.permission === 'deny') continue;
      offered.set(tool.wireName, { label: server.label, tool, permission, via: 'app' });
    }
  }
  for (const server of source.person?.servers ?? []) {
    if (options.switchedOff?.has(server.label)) continue;
    if (!server.connected) {
      const shown = server.tools.length > 0 ? server.tools : [placeholderTool(server.label)];
      for (const tool of shown) {
        if (policy(server.label, tool.name).permission === 'deny') continue;
        const described = { ...tool, description: `(connect to use) ${tool.description}` };
        offered.set(tool.wireName, {
          label: server.label,
          tool: described,
          permission: policy(server.label, tool.name),
          via: 'connect',
        });
      }
      continue;
    }
    for (const tool of server.tools) {
      const permission = policy(server.label, tool.name);
      if (permission.permission === 'deny') continue;
      offered.set(tool.wireName, { label: server.label, tool, permission, via: 'person' });
    }
  }
  const { timeoutMs, maxOutputBytes } = source.config;
  const tools: McpTurnTools['tools'] = {};
  for (const [wireName, { label, tool, via }] of offered) {
    tools[wireName] = dynamicTool({
      description: `[MCP server "${label}", tool "${stripHiddenText(tool.name)}"] ${tool.description}`.trim(),
      inputSchema: jsonSchema(modelInputSchema(tool.inputSchema) as Parameters<typeof jsonSchema>[0]),
      execute: async (input: unknown, { toolCallId }) => {
        if (via === 'connect') return connectOutput(label, tool.name);
        const { elicit } = options;
        const args = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
        const callOptions = { timeoutMs, ...(options.signal ? { signal: options.signal } : {}) };
        let result: McpCallResult;
        try {
          const asking = {
            ...callOptions,
            ...(elicit
              ? {
                  elicit: (params: ElicitParams, signal: AbortSignal) =>
                    elicit({ toolCallId, server: label, tool: tool.name, params }, signal),
                }
              : {}),
          };
          result =
            via === 'person' && source.person
              ? await source.person.call(label, tool.name, args, asking)
              : await source.manager.call(label, tool.name, args, asking);
        } catch (error) {
          if (McpNeedsConnectError.is(error)) return connectOutput(label, tool.name, error.scopes ?? []);
          throw new McpToolError((error as Error).message);
        }
        if (result.isError) throw new McpToolError(errorMessage(label, tool.name, result));
        return toOutput(label, tool.name, result, maxOutputBytes);
      },
    });
  }
  return {
    tools,
    names: [...offered.keys()],
    consent(toolName) {
      const found = offered.get(toolName);
      if (!found) return undefined;
      const { label, tool, permission, via } = found;
      const subject = { kind: 'mcp-tool', label, tool: tool.name } as const;
      const version = async () => tool.definitionHash;
      // Nothing reaches the server before the person connects: only the connect answer, which needs no consent.
      if (permission.permission === 'allow' || via === 'connect') return allowed(subject, version);
      return {
        subject,
        rule: 'ask',
        reason: `Call the tool "${stripHiddenText(tool.name)}" of the MCP server "${label}" with the arguments shown, asked because of the ${permission.reason}. What the server does with them is up to the server.`,
        version,
        always: true,
      };
    },
  };
}
