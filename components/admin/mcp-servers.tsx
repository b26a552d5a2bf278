/**
 * /admin: the MCP servers the operator configured: connected or not and why, each server's tools with the
 * permission the rules give them, and calls and failures per tool since the server process started.
 */

import { McpDisconnectButton } from '@/components/mcp/connect-button';
import type { AdminMcp, AdminMcpServer } from '@/server/admin/overview';
import { AdminTable } from './admin-table';
import { LocalTime } from './local-time';

const STATUS_TONE: Record<AdminMcpServer['status'], string> = {
  connected: 'ok',
  connecting: 'warning',
  failed: 'missing',
  disabled: 'missing',
  'per-person': 'ok',
};

/** Who connected a server that signs each person in, with Revoke. */
function Connections({ server, who }: { server: AdminMcpServer; who: Record<string, string> }) {
  const connections = server.connections ?? [];
  return (
    <AdminTable
      columns={[{ label: 'Person' }, { label: 'Connected' }, { label: 'Scopes' }, { label: '' }]}
      empty={{ testId: 'mcp-no-connections', text: 'Nobody has connected this server yet.' }}
      rows={connections.map((c) => (
        <tr key={c.userId} data-testid="mcp-connection-row" data-person={who[c.userId] ?? c.userId}>
          <td>{who[c.userId] ?? c.userId}</td>
          <td>{c.connectedAt ? <LocalTime ms={c.connectedAt} /> : ''}</td>
          <td className="muted small">{c.scopes.join(' ')}</td>
          <td>
            <McpDisconnectButton
              server={server.label}
              label="Revoke"
              endpoint={`/api/admin/mcp/${encodeURIComponent(server.label)}/connections/${encodeURIComponent(c.userId)}`}
            />
          </td>
        </tr>
      ))}
    />
  );
}

function ServerCard({ server, who }: { server: AdminMcpServer; who: Record<string, string> }) {
  return (
    <div className="stack" data-testid={`mcp-server-${server.label}`} data-status={server.status}>
      <h3>
        {server.label}{' '}
        <span className={`pill pill--${STATUS_TONE[server.status]}`} data-testid="mcp-status">
          {server.status}
        </span>{' '}
        <span className="muted small">
          {server.transport === 'stdio' ? 'stdio' : 'Streamable HTTP'}
          {server.serverInfo ? ` · ${server.serverInfo}` : ''}
        </span>
      </h3>
      <p className="small">
        <code data-testid="mcp-target">{server.target}</code>
      </p>
      {server.status === 'per-person' ? (
        <>
          <p className="small" data-testid="mcp-reason">
            {server.reason ?? ''}
          </p>
          <Connections server={server} who={who} />
        </>
      ) : null}
      {server.status !== 'connected' && server.status !== 'per-person' ? (
        <p className="small" data-testid="mcp-reason">
          {server.reason ?? ''}
          <span className="muted">
            {' '}
            (since <LocalTime ms={server.since} />
            {server.status === 'failed' && server.retryAt ? (
              <>
                ; {server.failures} {server.failures === 1 ? 'failure' : 'failures'} in a row, next try{' '}
                <LocalTime ms={server.retryAt} />
              </>
            ) : null}
            ). Its tools are not offered until it connects; chats never wait for it.
          </span>
        </p>
      ) : null}
      <AdminTable
        columns={[
          { label: 'Tool' },
          { label: 'Permission' },
          { label: 'Calls' },
          { label: 'Failures' },
          { label: 'Description' },
        ]}
        empty={{
          testId: 'mcp-no-tools',
          text:
            server.status === 'connected'
              ? 'This server lists no tools.'
              : server.status === 'per-person'
                ? 'Its tools are listed for each person who connects it, in their chats.'
                : 'No tools while it is not connected.',
        }}
        rows={server.tools.map((tool) => (
          <tr key={tool.name} data-testid={`mcp-tool-${tool.displayName}`}>
            <td>
              <code>{tool.displayName}</code>
            </td>
            <td title={tool.permissionReason}>
              <span data-testid="mcp-tool-permission">{tool.permission}</span>{' '}
              <span className="muted small">{tool.permissionReason}</span>
            </td>
            <td data-testid="mcp-tool-calls">{tool.calls}</td>
            <td data-testid="mcp-tool-failures" title={tool.lastError}>
              {tool.failures}
            </td>
            <td className="muted small">{tool.description}</td>
          </tr>
        ))}
      />
      {server.skipped.length > 0 ? (
        <p className="muted small" data-testid="mcp-skipped">
          Left out: {server.skipped.map((s) => `${s.name} (${s.reason})`).join('; ')}
        </p>
      ) : null}
    </div>
  );
}

export function McpServers({ mcp, who = {} }: { mcp: AdminMcp; who?: Record<string, string> }) {
  if (mcp.servers.length === 0) {
    return (
      <p className="empty" data-testid="mcp-none">
        No MCP servers are configured. Add them under <code>mcpServers</code> in <code>skillchat.config.json</code>.
      </p>
    );
  }
  return (
    <>
      <p className="muted small">
        Tools of connected servers are offered to the model as <code>mcp.&lt;server&gt;.&lt;tool&gt;</code>; a call may
        take {Math.round(mcp.timeoutMs / 1000)} s. Counts are since this server process started. Tool descriptions and
        results are the MCP server&apos;s text, not ours; stdio servers run on this host as the app&apos;s user, outside
        the sandbox.
      </p>
      <div className="stack">
        {mcp.servers.map((server) => (
          <ServerCard key={server.label} server={server} who={who} />
        ))}
      </div>
    </>
  );
}
