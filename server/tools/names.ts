/**
 * Tool names, the one naming scheme: on the wire `<family>_<verb>` (OpenAI allows `^[a-zA-Z0-9_-]{1,64}$`, so no
 * dot), shown to people and in `data-testid="tool-card-<display name>"` as `<family>.<verb>`: `skills.activate`,
 * `sandbox.exec`. Plain constants, safe to import from the browser; everything else about a tool is declared in its
 * own file here.
 */
export const TOOL_ACTIVATE = 'skills_activate';
export const TOOL_READ_RESOURCE = 'skills_readResource';
export const TOOL_RUN_SCRIPT = 'skills_runScript';
export const TOOL_SEARCH = 'skills_search';
/** A command line in the chat's sandbox (the model's shell). */
export const TOOL_SHELL = 'sandbox_exec';

export type ToolName =
  | typeof TOOL_ACTIVATE
  | typeof TOOL_READ_RESOURCE
  | typeof TOOL_RUN_SCRIPT
  | typeof TOOL_SEARCH
  | typeof TOOL_SHELL;

/**
 * Tools of an MCP server the operator configured: `mcp_<label>_<tool>` on the wire (server/mcp/tool-names.ts makes the
 * tool part safe), `mcp.<label>.<tool>` for people. A label has no `_`, so the first `_` after it ends it.
 */
export const MCP_TOOL_PREFIX = 'mcp_';

/** `{ label, tool }` of an MCP tool's wire name (`tool` as it is on the wire), or null for other tools. */
export function parseMcpToolName(wireName: string): { label: string; tool: string } | null {
  const m = /^mcp_([a-z0-9][a-z0-9-]*)_(.+)$/.exec(wireName);
  return m ? { label: m[1]!, tool: m[2]! } : null;
}

/**
 * `skills_activate` -> `skills.activate`, `sandbox_exec` -> `sandbox.exec`, `mcp_github_list_issues` ->
 * `mcp.github.list_issues`; other names are shown as they are.
 */
export function toolDisplayName(wireName: string): string {
  const mcp = parseMcpToolName(wireName);
  if (mcp) return `mcp.${mcp.label}.${mcp.tool}`;
  return wireName.replace(/^(skills|sandbox)_/, '$1.');
}

/**
 * Ends an activation's approval reason when "Always allow" cannot be kept (a served skill whose resources are
 * "dynamic": nothing to bind a grant to). The card leaves the button out when it sees it.
 */
/** Said on a command's card when it also asks for hosts: no standing grant covers that, so the card offers none. */
export const ASKED_EACH_TIME = 'A command that may reach them is asked for each time.';

export const NO_STANDING_GRANT = 'It is dynamic (its server lists no file digests): "Always allow" is not offered.';
