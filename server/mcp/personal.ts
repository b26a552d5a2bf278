/**
 * A person's own switch per MCP server (like their switched-off skills): stored in `user_skill_prefs`
 * under `mcp:<label>` (skill names never hold `:`), so no new table. The turn reads them with the person's skills
 * (`personalAccess`) and leaves those servers' tools out. Only servers the operator left enabled are listed.
 */
import { type Database, listDisabledSkills, setSkillDisabled } from '../db';
import { AppError } from '../errors';
import type { McpConfig } from './config';
import type { McpServerState } from './manager';
import { mcpPrefKey } from './tools';

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
  const off = new Set(await listDisabledSkills(userId, deps.db));
  return deps.mcp
    .list()
    .filter((s) => s.status !== 'disabled')
    .map((s) => ({
      label: s.label,
      status: s.status,
      tools: s.tools.map((t) => t.name),
      disabled: off.has(mcpPrefKey(s.label)),
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
  await setSkillDisabled(userId, mcpPrefKey(label), disabled, deps.db);
  return { label, disabled };
}
