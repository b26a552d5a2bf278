/**
 * A person's own switch per MCP server (like their switched-off skills): stored beside those as the subject
 * `mcp-server` `<label>` (server/consent/subjects.ts), so it never meets a skill's switch, a served skill named
 * `mcp:<label>` included. The turn leaves those servers' tools out. Only servers the operator left enabled are listed.
 */
import { storedSubject } from '../consent/subjects';
import { type Database, listSwitchedOff, setSwitchedOff } from '../db';
import { AppError } from '../errors';
import type { McpConfig } from './config';
import type { McpServerState } from './manager';

export interface McpServerPref {
  label: string;
  status: McpServerState['status'];
  /** Tool names shown to people (`mcp.<label>.<tool>`) while connected. */
  tools: string[];
  disabled: boolean;
}

export async function listMcpPrefs(
  deps: { db: Database; mcp: { list(): McpServerState[] } },
  userId: string,
): Promise<McpServerPref[]> {
  const off = await switchedOffServers(deps.db, userId);
  return deps.mcp
    .list()
    .filter((s) => s.status !== 'disabled')
    .map((s) => ({
      label: s.label,
      status: s.status,
      tools: s.tools.map((t) => t.name),
      disabled: off.has(s.label),
    }));
}

/** Switches a server off (or back on) for `userId`; 404 `not_found:mcp_server` for a label not configured. */
export async function setMcpPref(
  deps: { db: Database; config: { mcp: McpConfig } },
  userId: string,
  label: string,
  disabled: boolean,
): Promise<{ label: string; disabled: boolean }> {
  const entry = Object.hasOwn(deps.config.mcp.servers, label) ? deps.config.mcp.servers[label] : undefined;
  if (!entry || entry.disabled) throw new AppError('not_found:mcp_server', `MCP server "${label}" is not configured`);
  await setSwitchedOff(userId, storedSubject({ kind: 'mcp-server', label }), disabled, deps.db);
  return { label, disabled };
}

/** The labels of the servers `userId` switched off. */
export async function switchedOffServers(db: Database, userId: string): Promise<ReadonlySet<string>> {
  return new Set(await listSwitchedOff(userId, 'mcp-server', db));
}
