/**
 * Tool cards are looked up by tool name in one registry, so adding a tool means registering a renderer, not editing a
 * chain of `if (type === ...)` in the message component. A family of tools whose names are not known in advance
 * (an MCP server's, `mcp_<server>_<tool>`) registers for its prefix. Unknown tools get the default card.
 */
import type { ComponentType } from 'react';

/**
 * What every card shows, derived from the tool part's wire `state`: `waiting` for the person's approval, `denied`
 * when the call was not approved (a decision, not a failure).
 */
export type ToolCallStatus = 'running' | 'waiting' | 'done' | 'error' | 'denied';

/** The approval attached to a tool part (skills under `ask`), as the AI SDK carries it on the part. */
export interface ToolApprovalView {
  id: string;
  /** Unset while waiting for the person. */
  approved?: boolean;
  /** Why the server asks: which skill, from where, under which rule. */
  requestReason?: string;
  /** Why it was approved or denied (e.g. "Always allowed for this version of the skill."). */
  reason?: string;
  /** Approved or denied by the server without asking (a grant, `/name`, a deny rule). */
  isAutomatic?: boolean;
}

/** A tool part reduced to what a card needs; `input` may be partial while it streams. */
export interface ToolCallView<Input = unknown, Output = unknown> {
  toolCallId: string;
  /** Wire name, e.g. `skills_activate`. */
  toolName: string;
  /** Name shown to people and used in `data-testid="tool-card-<displayName>"`, e.g. `skills.activate`. */
  displayName: string;
  status: ToolCallStatus;
  /** Finer-grained wire state (`input-streaming`, `approval-requested`, ...) for cards that care. */
  state: string;
  input: Partial<Input> | undefined;
  output: Output | undefined;
  errorText: string | undefined;
  approval: ToolApprovalView | undefined;
}

export interface ToolRendererProps<Input = unknown, Output = unknown> {
  call: ToolCallView<Input, Output>;
}

export type ToolRenderer<Input = unknown, Output = unknown> = ComponentType<ToolRendererProps<Input, Output>>;

const renderers = new Map<string, ToolRenderer>();
const byPrefix: [string, ToolRenderer][] = [];
let fallback: ToolRenderer | null = null;

export function registerToolRenderer<Input, Output>(toolName: string, renderer: ToolRenderer<Input, Output>): void {
  // The map is keyed by tool name and parts of that tool carry that tool's input/output shapes, so widening the
  // renderer's props to `unknown` here is sound at lookup time; TypeScript cannot see that pairing by itself.
  renderers.set(toolName, renderer as unknown as ToolRenderer);
}

/** A card for every tool whose wire name starts with `prefix` (and has no card of its own). */
export function registerToolRendererForPrefix<Input, Output>(
  prefix: string,
  renderer: ToolRenderer<Input, Output>,
): void {
  byPrefix.push([prefix, renderer as unknown as ToolRenderer]);
}

export function registerDefaultToolRenderer(renderer: ToolRenderer): void {
  fallback = renderer;
}

export function getToolRenderer(toolName: string): ToolRenderer {
  const renderer = renderers.get(toolName) ?? byPrefix.find(([prefix]) => toolName.startsWith(prefix))?.[1] ?? fallback;
  if (!renderer) throw new Error('No default tool renderer registered (import components/tools/builtin)');
  return renderer;
}
