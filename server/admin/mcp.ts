/**
 * The MCP section of /admin: each configured server, connected or not and why, its tools with the permission the
 * rules give them, and the calls and failures of each tool since the process started (kept in memory by the
 * manager).
 */
import type { Permission } from '../config';
import type { McpConfig } from '../mcp/config';
import type { McpServerState } from '../mcp/manager';
import type { McpConnectionInfo } from '../mcp/oauth-store';
import { createMcpPolicy } from '../mcp/permissions';
import { toolDisplayName } from '../tools/names';

export interface AdminMcpTool {
  name: string;
  /** `mcp.<label>.<tool>`: what the chat's card shows. */
  displayName: string;
  description: string;
  permission: Permission;
  permissionReason: string;
  calls: number;
  failures: number;
  lastError?: string;
}

/** A person connected to a server that signs each person in (never a token). */
export interface AdminMcpConnection {
  userId: string;
  scopes: string[];
  connectedAt: number | null;
  expiresAt: number | null;
}

/** A server's state as the manager keeps it, with its tools as /admin shows them (and no per-tool stats map). */
export type AdminMcpServer = Omit<McpServerState, 'tools' | 'stats'> & {
  tools: AdminMcpTool[];
  /** Per-person servers: who connected it. */
  connections?: AdminMcpConnection[];
};

export interface AdminMcp {
  servers: AdminMcpServer[];
  timeoutMs: number;
  rules: { pattern: string; permission: Permission }[];
}

export const NO_MCP: AdminMcp = { servers: [], timeoutMs: 0, rules: [] };

export function buildMcpAdmin(
  states: readonly McpServerState[],
  config: McpConfig,
  connections: readonly McpConnectionInfo[] = [],
): AdminMcp {
  const policy = createMcpPolicy(config.rules);
  return {
    timeoutMs: config.timeoutMs,
    rules: Object.entries(config.rules).map(([pattern, permission]) => ({ pattern, permission })),
    servers: states.map((s) => ({
      label: s.label,
      transport: s.transport,
      target: s.target,
      status: s.status,
      ...(s.reason && s.status !== 'connected' ? { reason: s.reason } : {}),
      since: s.since,
      ...(s.retryAt ? { retryAt: s.retryAt } : {}),
      failures: s.failures,
      ...(s.serverInfo ? { serverInfo: s.serverInfo } : {}),
      skipped: s.skipped,
      ...(s.status === 'per-person'
        ? {
            connections: connections
              .filter((c) => c.server === s.label && c.connected)
              .map((c) => ({
                userId: c.userId,
                scopes: c.scopes,
                connectedAt: c.connectedAt?.getTime() ?? null,
                expiresAt: c.expiresAt?.getTime() ?? null,
              })),
          }
        : {}),
      tools: s.tools.map((t) => {
        const { permission, reason } = policy(s.label, t.name);
        const stats = s.stats[t.name];
        return {
          name: t.name,
          displayName: toolDisplayName(t.wireName),
          description: t.description,
          permission,
          permissionReason: reason,
          calls: stats?.calls ?? 0,
          failures: stats?.failures ?? 0,
          ...(stats?.lastError ? { lastError: stats.lastError } : {}),
        };
      }),
    })),
  };
}
