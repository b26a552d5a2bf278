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

/** `skills_activate` -> `skills.activate`, `sandbox_exec` -> `sandbox.exec`; other names are shown as they are. */
export function toolDisplayName(wireName: string): string {
  return wireName.replace(/^(skills|sandbox)_/, '$1.');
}
