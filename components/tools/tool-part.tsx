'use client';
import { type DynamicToolUIPart, getToolName, type ToolUIPart } from 'ai';
/** Turns one tool part of a message into its registered card. */
import type { ChatTools } from '@/server/chat/wire-types';
import { toolDisplayName } from '@/server/tools/names';
import './builtin';
import { getToolRenderer, type ToolApprovalView, type ToolCallStatus, type ToolCallView } from './registry';

export type AnyToolPart = ToolUIPart<ChatTools> | DynamicToolUIPart;

function statusOf(state: AnyToolPart['state']): ToolCallStatus {
  switch (state) {
    case 'output-available':
      return 'done';
    case 'output-error':
      return 'error';
    case 'output-denied':
      return 'denied';
    case 'approval-requested':
      return 'waiting';
    default:
      // input-streaming, input-available, and approval-responded (the answer is on its way): no result yet.
      return 'running';
  }
}

function errorTextOf(part: AnyToolPart): string | undefined {
  if (part.state === 'output-error') return part.errorText;
  if (part.state === 'output-denied') return part.approval.reason ?? 'The tool call was not approved.';
  return undefined;
}

function approvalOf(part: AnyToolPart): ToolApprovalView | undefined {
  if (!part.approval) return undefined;
  const { id, approved, requestReason, reason, isAutomatic } = part.approval;
  return { id, approved, requestReason, reason, isAutomatic };
}

export function toToolCallView(part: AnyToolPart): ToolCallView {
  const toolName = getToolName(part);
  return {
    toolCallId: part.toolCallId,
    toolName,
    displayName: toolDisplayName(toolName),
    // A tool that reports while it works (a command's output so far) sends preliminary outputs: still running.
    status: part.state === 'output-available' && part.preliminary ? 'running' : statusOf(part.state),
    state: part.state,
    input: part.input ?? undefined,
    output: part.state === 'output-available' ? part.output : undefined,
    errorText: errorTextOf(part),
    approval: approvalOf(part),
  };
}

export function ToolPart({ part }: { part: AnyToolPart }) {
  const call = toToolCallView(part);
  const Renderer = getToolRenderer(call.toolName);
  return <Renderer call={call} />;
}
