'use client';
/**
 * Connect (or Disconnect) a server that signs each person in: Connect asks the app to start the sign-in and sends
 * the browser to the authorization server, which returns to `returnTo` (this page by default).
 */
import { useState } from 'react';

async function failure(response: Response): Promise<string> {
  const body = (await response.json().catch(() => null)) as { message?: string } | null;
  return body?.message ?? `The request failed (${response.status}).`;
}

export function McpConnectButton({ server, returnTo }: { server: string; returnTo?: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const connect = async () => {
    setBusy(true);
    setError(null);
    const back = returnTo ?? `${window.location.pathname}${window.location.search}`;
    const response = await fetch(`/api/me/mcp/${encodeURIComponent(server)}/connection`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ returnTo: back }),
    });
    if (!response.ok) {
      setError(await failure(response));
      setBusy(false);
      return;
    }
    const body = (await response.json()) as { connected: boolean; authorizationUrl?: string };
    if (body.authorizationUrl) window.location.assign(body.authorizationUrl);
    else window.location.reload();
  };
  return (
    <span className="mcp-connect">
      <button
        type="button"
        className="button button--primary button--small"
        data-testid={`mcp-connect-${server}`}
        disabled={busy}
        onClick={connect}
      >
        {busy ? 'Connecting…' : `Connect ${server}`}
      </button>
      {error ? (
        <span role="alert" className="secret-status--problem small" data-testid="mcp-connect-error">
          {error}
        </span>
      ) : null}
    </span>
  );
}

export function McpDisconnectButton({ server, endpoint, label }: { server: string; endpoint: string; label: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    setBusy(true);
    const response = await fetch(endpoint, { method: 'DELETE' });
    if (!response.ok) {
      setError(await failure(response));
      setBusy(false);
      return;
    }
    window.location.reload();
  };
  return (
    <span className="mcp-connect">
      <button
        type="button"
        className="button button--outline button--small"
        data-testid={`mcp-disconnect-${server}`}
        disabled={busy}
        onClick={run}
      >
        {label}
      </button>
      {error ? (
        <span role="alert" className="secret-status--problem small">
          {error}
        </span>
      ) : null}
    </span>
  );
}
