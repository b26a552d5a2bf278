/**
 * Tool names, the one naming scheme: on the wire `skills_<verb>` (OpenAI allows `^[a-zA-Z0-9_-]{1,64}$`, so no
 * dot), shown to people and in `data-testid="tool-card-<display name>"` as `skills.<verb>`. Plain constants, safe to
 * import from the browser; everything else about a tool is declared in its own file here.
 */
export const TOOL_ACTIVATE = 'skills_activate';
export const TOOL_READ_RESOURCE = 'skills_readResource';
export const TOOL_RUN_SCRIPT = 'skills_runScript';
export const TOOL_SEARCH = 'skills_search';

export type ToolName = typeof TOOL_ACTIVATE | typeof TOOL_READ_RESOURCE | typeof TOOL_RUN_SCRIPT | typeof TOOL_SEARCH;

/** `skills_activate` -> `skills.activate`; names outside the scheme are shown as they are. */
export function toolDisplayName(wireName: string): string {
  return wireName.replace(/^skills_/, 'skills.');
}
