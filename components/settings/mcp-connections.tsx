/** /settings: the MCP servers that sign each person in, connected or not, with Connect and Disconnect. */
import { LocalTime } from '@/components/admin/local-time';
import { McpConnectButton, McpDisconnectButton } from '@/components/mcp/connect-button';
import type { McpConnectionView } from '@/server/mcp/connect';
import '@/components/secrets/secrets.css';

export function McpConnections({ connections, error }: { connections: McpConnectionView[]; error?: string }) {
  if (connections.length === 0) {
    return (
      <p className="secret-list__meta" data-testid="mcp-connections-empty">
        No MCP server here asks you to sign in.
      </p>
    );
  }
  return (
    <>
      {error ? (
        <p role="alert" className="secret-status--problem" data-testid="mcp-connection-error">
          {error}
        </p>
      ) : null}
      <ul className="secret-list" data-testid="mcp-connections">
        {connections.map((c) => (
          <li key={c.server} data-testid="mcp-connection" data-server={c.server} data-connected={c.connected}>
            <span>
              <code>{c.server}</code>{' '}
              <span className={c.connected ? undefined : 'secret-status--unset'} data-testid="mcp-connection-status">
                {c.connected ? (
                  <>
                    connected
                    {c.connectedAt ? (
                      <>
                        {' '}
                        <LocalTime ms={c.connectedAt} />
                      </>
                    ) : null}
                  </>
                ) : (
                  'not connected'
                )}
              </span>
            </span>
            <span className="secret-list__meta">
              {c.connected && c.scopes.length > 0
                ? `Scopes: ${c.scopes.join(', ')}`
                : 'Its tools act as you once you connect.'}
            </span>
            {c.connected ? (
              <McpDisconnectButton
                server={c.server}
                label="Disconnect"
                endpoint={`/api/me/mcp/${encodeURIComponent(c.server)}/connection`}
              />
            ) : (
              <McpConnectButton server={c.server} returnTo="/settings" />
            )}
          </li>
        ))}
      </ul>
    </>
  );
}
