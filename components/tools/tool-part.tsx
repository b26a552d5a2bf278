'use client';
import { type DynamicToolUIPart, getToolName, type ToolUIPart } from 'ai';
/** Turns one tool part of a message into its registered card. */
import type { ChatTools } from '@/server/chat/types';
import { TOOL_DISPLAY_NAMES } from '@/server/chat/types';
import './builtin';
import { getToolRenderer, type ToolCallStatus, type ToolCallView } from './registry';

export type AnyToolPart = ToolUIPart<ChatTools> | DynamicToolUIPart;

function statusOf(state: AnyToolPart['state']): ToolCallStatus {
  switch (state) {
    case 'output-available':
      return 'done';
    case 'output-error':
    case 'output-denied':
      return 'error';
    default:
      // input-streaming, input-available and the approval states: the call has not produced a result yet.
      return 'running';
  }
}

function errorTextOf(part: AnyToolPart): string | undefined {
  if (part.state === 'output-error') return part.errorText;
  if (part.state === 'output-denied') return part.approval.reason ?? 'The tool call was not approved.';
  return undefined;
}

export function toToolCallView(part: AnyToolPart): ToolCallView {
  const toolName = getToolName(part);
  return {
    toolCallId: part.toolCallId,
    toolName,
    displayName: TOOL_DISPLAY_NAMES[toolName] ?? toolName,
    status: statusOf(part.state),
    state: part.state,
    input: part.input ?? undefined,
    output: part.state === 'output-available' ? part.output : undefined,
    errorText: errorTextOf(part),
  };
}

export function ToolPart({ part }: { part: AnyToolPart }) {
  const call = toToolCallView(part);
  const Renderer = getToolRenderer(call.toolName);
  return <Renderer call={call} />;
}
