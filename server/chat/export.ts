/**
 * A chat as a file: JSON (the stored messages with every part, tool calls and activations included: what a script
 * re-imports) or Markdown (what a person reads). Built from the same view the chat page loads.
 */
import { toolDisplayName } from '../tools/names';
import type { ChatView } from './store';
import type { ChatMessage } from './wire-types';

export type ExportFormat = 'md' | 'json';

export interface ExportedChat {
  body: string;
  contentType: string;
  fileName: string;
}

/** Tool inputs and outputs in Markdown are cut here: an export is for reading, the JSON keeps everything. */
const MAX_TOOL_CHARS = 2000;

function fence(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const marks = '`'.repeat(longest + 1);
  return `${marks}${lang}\n${text}\n${marks}`;
}

function clip(text: string): string {
  return text.length <= MAX_TOOL_CHARS ? text : `${text.slice(0, MAX_TOOL_CHARS)}\n… (cut; the JSON export has it all)`;
}

function stamp(ms: number | undefined): string {
  return ms === undefined ? '' : ` · ${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC`;
}

function isToolPart(
  part: ChatMessage['parts'][number],
): part is Extract<ChatMessage['parts'][number], { toolCallId: string }> {
  return (part.type.startsWith('tool-') || part.type === 'dynamic-tool') && 'toolCallId' in part;
}

function toolMarkdown(part: Extract<ChatMessage['parts'][number], { toolCallId: string }>): string {
  // MCP tools are dynamic: their part names the tool instead of its type.
  const wire =
    'toolName' in part && typeof part.toolName === 'string' ? part.toolName : part.type.slice('tool-'.length);
  const lines = [
    `**Tool \`${toolDisplayName(wire)}\`** (${part.state})`,
    '',
    'Input:',
    fence(clip(JSON.stringify(part.input ?? null, null, 2)), 'json'),
  ];
  if (part.state === 'output-available') {
    lines.push('', 'Output:', fence(clip(JSON.stringify(part.output, null, 2)), 'json'));
  } else if (part.state === 'output-error') {
    lines.push('', `Error: ${part.errorText}`);
  }
  return lines.join('\n');
}

function messageMarkdown(message: ChatMessage): string {
  const who = message.role === 'user' ? 'You' : message.role === 'assistant' ? 'Assistant' : 'System';
  const model = message.role === 'assistant' && message.metadata?.model ? ` (${message.metadata.model})` : '';
  const status = message.metadata?.status ? ` [${message.metadata.status}]` : '';
  const blocks = [`## ${who}${model}${stamp(message.metadata?.createdAt)}${status}`];
  for (const part of message.parts) {
    if (part.type === 'text' && part.text.trim() !== '') blocks.push(part.text);
    else if (isToolPart(part)) blocks.push(toolMarkdown(part));
  }
  const attachments = message.metadata?.attachments ?? [];
  if (attachments.length > 0) blocks.push(`Attached: ${attachments.map((a) => `\`${a.name}\``).join(', ')}`);
  return blocks.join('\n\n');
}

function markdown(view: ChatView, exportedAt: Date): string {
  const lines = [`# ${view.chat.title}`, '', `Exported from skillchat on ${exportedAt.toISOString()}.`];
  if (view.activations.length > 0) {
    lines.push('', 'Skills activated in this chat:', '');
    for (const a of view.activations) lines.push(`- \`${a.skillName}\` (${a.lastHow}, ${a.count}×)`);
  }
  return `${[lines.join('\n'), ...view.messages.map(messageMarkdown)].join('\n\n')}\n`;
}

/** A file name from the title: letters, digits and dashes, never empty. */
function baseName(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return slug === '' ? 'chat' : slug;
}

export function exportChat(view: ChatView, format: ExportFormat, exportedAt = new Date()): ExportedChat {
  const name = baseName(view.chat.title);
  if (format === 'json') {
    const { snippet: _snippet, messageId: _messageId, ...chat } = view.chat;
    return {
      body: `${JSON.stringify({ format: 'skillchat-chat', version: 1, exportedAt: exportedAt.toISOString(), chat, activations: view.activations, messages: view.messages }, null, 2)}\n`,
      contentType: 'application/json; charset=utf-8',
      fileName: `${name}.json`,
    };
  }
  return { body: markdown(view, exportedAt), contentType: 'text/markdown; charset=utf-8', fileName: `${name}.md` };
}
