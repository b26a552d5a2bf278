/**
 * The turn's built-in tools (the skill tools and the shell), derived from their declarations (one file each here):
 * the tool set a turn offers, which of them a step may call (`prepareStep`), how each asks for consent, and the wire
 * types the browser's cards read.
 */
import { type Schema, type Tool, tool, zodSchema } from 'ai';
import type { ConsentAsk } from '../consent/ask';
import { KeptMap } from '../kept-map';
import { activateTool } from './activate';
import type { ConsentToolContext, SkillToolContext } from './context';
import type { ToolDeclaration } from './define';
import type { ToolName } from './names';
import { readResourceTool } from './read-resource';
import { runScriptTool } from './run-script';
import { shellTool } from './sandbox-exec';
import { searchTool } from './search';

/** Every tool, in the order the model is told about them. */
export const TOOL_DECLARATIONS = [searchTool, activateTool, readResourceTool, runScriptTool, shellTool] as const;

type Declaration = (typeof TOOL_DECLARATIONS)[number];
type InputOf<D> = D extends ToolDeclaration<ToolName, infer I, unknown> ? I : never;
type OutputOf<D> = D extends ToolDeclaration<ToolName, unknown, infer O> ? O : never;

/** Each tool's input and output by wire name: the `UIMessage` tool types (chat/wire-types.ts) and the cards use it. */
export type ToolTypes = { [D in Declaration as D['name']]: { input: InputOf<D>; output: OutputOf<D> } };

/** The built-in tools of a turn by wire name (the skill tools and the shell); a turn adds MCP tools beside them. */
export type TurnTools = {
  [D in Declaration as D['name']]: Tool<InputOf<D>, OutputOf<D>>;
};

const byName: ReadonlyMap<string, Declaration> = new Map(TOOL_DECLARATIONS.map((d) => [d.name, d]));

/**
 * The built-in tool set for a turn (skill tools and the shell), or undefined when there is nothing to offer: no skills (no skill tools at all) and no
 * shell for this person.
 */
export function createTurnTools(ctx: SkillToolContext): TurnTools | undefined {
  if (ctx.skills.size === 0 && (ctx.shell ?? 'off') === 'off') return undefined;
  // Each entry keeps its own declaration's input and output; the record's type (TurnTools) pairs them by name,
  // which TypeScript cannot follow through `map`.
  const entries = TOOL_DECLARATIONS.map((d) => [
    d.name,
    toAiTool(d as unknown as ToolDeclaration<ToolName, unknown, unknown>, ctx),
  ]);
  return Object.fromEntries(entries) as TurnTools;
}

function toAiTool<Input, Output>(d: ToolDeclaration<ToolName, Input, Output>, ctx: SkillToolContext) {
  // Built over `unknown`: the SDK's overloads cannot resolve a still-generic output type; the declaration's own
  // types are put back on the result.
  const built = tool({
    description: d.description,
    inputSchema: inputSchema(d, ctx),
    outputSchema: outputSchema(d),
    execute: (input: unknown, { toolCallId }) =>
      d.execute(ctx, input as Input, { toolCallId }) as Promise<unknown> | AsyncIterable<unknown>,
  });
  return built as unknown as Tool<Input, Output>;
}

/**
 * The SDK turns a zod schema into JSON Schema each time it meets one (every step of every turn); wrapped once with
 * `zodSchema`, the JSON Schema is computed on first use and kept. An input depends on the turn only through the
 * activation enum, so it is kept per declaration and enum (a few: the enum changes only with the skill set).
 */
const inputs = new KeptMap<string, Schema<unknown>>(32);
const outputs = new KeptMap<string, Schema<unknown>>(TOOL_DECLARATIONS.length);

function inputSchema(d: Pick<ToolDeclaration<ToolName, unknown, unknown>, 'name' | 'input'>, ctx: SkillToolContext) {
  const key = `${d.name}\n${ctx.activationEnum?.join('\n') ?? ''}`;
  return inputs.getOrSet(key, () => zodSchema(d.input(ctx)));
}

function outputSchema(d: Pick<ToolDeclaration<ToolName, unknown, unknown>, 'name' | 'output'>) {
  return outputs.getOrSet(d.name, () => zodSchema(d.output));
}

/** The tools the model may call at this step: those whose declaration offers them now. */
export async function offeredTools(ctx: SkillToolContext): Promise<Array<keyof TurnTools>> {
  const offered = await Promise.all(TOOL_DECLARATIONS.map(async (d) => (d.offered ? d.offered(ctx) : true)));
  return TOOL_DECLARATIONS.filter((_, i) => offered[i]).map((d) => d.name);
}

/** Whether a call of this tool may wait for the person's consent (its declaration says how it asks). */
export function needsConsent(toolName: string): boolean {
  return byName.get(toolName)?.consent !== undefined;
}

/** How this call of a built-in tool asks for consent; null for a tool that never asks, or a call that asks nothing. */
export function toolConsent(toolName: string, ctx: ConsentToolContext, input: unknown): ConsentAsk | null {
  const consent = byName.get(toolName)?.consent as ToolDeclaration<ToolName, unknown, unknown>['consent'];
  if (!consent) return null;
  // The call's input as sent: each tool checks the fields it reads.
  return consent(ctx, typeof input === 'object' && input !== null ? (input as Partial<unknown>) : {});
}

export type { ActivateInput, ActivateOutput } from './activate';
export { activateSkill } from './activate';
export { WARNING_MARK } from './activate-consent';
export { type ActivationHow, type ConsentToolContext, type SkillToolContext, SkillToolError } from './context';
export type { ReadResourceInput, ReadResourceOutput } from './read-resource';
export { readResource } from './read-resource';
export type { ProducedFile, RunScriptInput, RunScriptOutput } from './run-script';
export { runnableSkills, runScript } from './run-script';
export type { SearchInput, SearchOutput } from './search';
export { searchCatalog } from './search';
