/**
 * Who may call an MCP tool without asking: the operator's `mcp.rules`, globs over `server/tool` with the same
 * most-specific-wins order as the skill rules (server/access/globs.ts). A pattern without `/` names every tool of a
 * server (`"github": "ask"` is `"github/*"`). Without a rule a tool is allowed: only the operator configures servers.
 */

import { compileGlobRules } from '../access/globs';
import type { Permission } from '../config';

export interface McpPermission {
  permission: Permission;
  /** For people: `rule "github/delete_*"`, or `default for a configured MCP server`. */
  reason: string;
}

export type McpPolicy = (label: string, tool: string) => McpPermission;

export function createMcpPolicy(rules: Record<string, Permission>): McpPolicy {
  const written = new Map<string, string>();
  const normalised: Record<string, Permission> = {};
  for (const [pattern, permission] of Object.entries(rules)) {
    const full = pattern.includes('/') ? pattern : `${pattern}/*`;
    written.set(full, pattern);
    normalised[full] = permission;
  }
  const match = compileGlobRules(normalised);
  return (label, tool) => {
    const hit = match(`${label}/${tool}`);
    if (hit) return { permission: hit.value, reason: `rule "${written.get(hit.pattern) ?? hit.pattern}"` };
    return { permission: 'allow', reason: 'default for a configured MCP server' };
  };
}
