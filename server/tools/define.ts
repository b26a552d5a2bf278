/**
 * `defineTool`: everything about one tool in one place: wire name (names.ts), input and output schemas, `execute`, how
 * it asks for the person's consent, when it is offered, and its long description, read from the sibling
 * `<file>.txt` so the prompt text is reviewable as text. The chat's tool set, the `prepareStep` filter, approvals
 * and the browser's card types are derived from these declarations (index.ts).
 */
import fs from 'node:fs';
import { z } from 'zod';
import type { ConsentAsk } from '../consent/ask';
import type { ConsentToolContext, SkillToolContext } from './context';
import { type ToolName, toolDisplayName } from './names';

export interface ToolDeclaration<Name extends ToolName, Input, Output> {
  name: Name;
  displayName: string;
  description: string;
  /** Built per turn: the skill-name field is an enum when every usable skill is listed. */
  input: (ctx: SkillToolContext) => z.ZodType<Input>;
  /** What `execute` returns: the card's data and the model's tool result. */
  output: z.ZodType<Output>;
  /**
   * How a call asks for consent (server/consent/ask.ts): its subject, the rule, the version an answer binds to,
   * whether "Always allow" is offered. Absent: the tool never asks. `input` is the call's input as the model sent
   * it, so each field is checked before use; null asks nothing (an unknown skill: the tool reports it).
   */
  consent?: (ctx: ConsentToolContext, input: Partial<Input>) => ConsentAsk | null;
  /** Whether the model is offered the tool at this step; always when absent. */
  offered?: (ctx: SkillToolContext) => boolean | Promise<boolean>;
  /**
   * The result; a tool that reports while it works (a command's output) yields each state, the last is final. `call`
   * names the call, so a run finds what its consent covered (`SkillToolContext.approvedNetwork`).
   */
  execute: (ctx: SkillToolContext, input: Input, call?: ToolCall) => Promise<Output> | AsyncIterable<Output>;
}

/** The call being executed, as the SDK names it. */
export interface ToolCall {
  toolCallId: string;
}

export function defineTool<Name extends ToolName, Input, Output>(
  declaration: Omit<ToolDeclaration<Name, Input, Output>, 'displayName' | 'description'> & {
    /** The description file, next to the declaration: `new URL('./x.txt', import.meta.url)`. */
    descriptionFile: URL;
  },
): ToolDeclaration<Name, Input, Output> {
  const { descriptionFile, ...rest } = declaration;
  return {
    ...rest,
    displayName: toolDisplayName(declaration.name),
    description: fs.readFileSync(descriptionFile, 'utf8').trim(),
  };
}

/**
 * The skill-name field. An enum keeps the model to known names; with skills left out of the catalog the model may
 * name one it found by search, and an enum of thousands of names would cost more than the catalog saved: then a
 * string, checked in `execute`.
 */
export function skillNameSchema(ctx: Pick<SkillToolContext, 'activationEnum'>): z.ZodType<string> {
  return ctx.activationEnum ? z.enum(ctx.activationEnum) : z.string().min(1).max(200);
}
