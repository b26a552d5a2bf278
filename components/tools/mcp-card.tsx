'use client';
import { McpConnectButton } from '@/components/mcp/connect-button';
/**
 * Card for a tool of an MCP server (`mcp.<server>.<tool>`, registered for the `mcp_` prefix): the arguments, then
 * the text the server returned (and what it sent that is not shown: images, binary resources), or the error. While
 * the call waits for approval the arguments are shown: that call, with those, is what the person allows.
 */
import type { McpToolOutput as McpOutput } from '@/server/mcp/tools';
import { parseMcpToolName } from '@/server/tools/names';
import type { ToolRendererProps } from './registry';
import { Badge, ToolCard, TruncatedBadge } from './tool-card';

function json(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? '';
  } catch {
    return String(value);
  }
}

function Arguments({ input }: { input: unknown }) {
  return (
    <>
      <span className="tool-card__label">Arguments</span>
      <pre className="tool-card__pre" data-testid="mcp-arguments">
        {json(input ?? {})}
      </pre>
    </>
  );
}

export function McpCard({ call }: ToolRendererProps<Record<string, unknown>, McpOutput>) {
  const parsed = parseMcpToolName(call.toolName);
  const server = call.output?.server ?? parsed?.label ?? '';
  const tool = call.output?.tool ?? parsed?.tool ?? call.toolName;
  const { output } = call;
  return (
    <ToolCard
      call={call}
      subject={`MCP server ${server}`}
      badges={output ? <TruncatedBadge when={output.truncated} /> : <Badge>MCP</Badge>}
      approval={{
        question: `Call ${tool} on the MCP server ${server}?`,
        details: <Arguments input={call.input} />,
        allowAlways: true,
      }}
    >
      {call.status === 'waiting' ? null : (
        <>
          <Arguments input={call.input} />
          {output?.connect?.scopes?.length ? (
            <p className="small" data-testid="mcp-connect-card" data-scopes={output.connect.scopes.join(' ')}>
              {server} needs more permission for {tool}: connect again to grant {output.connect.scopes.join(' ')}, then
              ask again. <McpConnectButton server={output.connect.server} />
            </p>
          ) : output?.connect ? (
            <p className="small" data-testid="mcp-connect-card">
              {server} signs in each person: connect it to use its tools, then ask again.{' '}
              <McpConnectButton server={output.connect.server} />
            </p>
          ) : output ? (
            <>
              <span className="tool-card__label">Result</span>
              <pre className="tool-card__pre" data-testid="mcp-output">
                {output.text || (output.structured !== undefined ? json(output.structured) : '(no text)')}
              </pre>
              {output.items && output.items.length > 0 ? (
                <ul className="small muted" data-testid="mcp-items">
                  {output.items.map((item) => (
                    <li key={item}>{item}</li>
                  ))}
                </ul>
              ) : null}
            </>
          ) : null}
        </>
      )}
    </ToolCard>
  );
}
