'use client';
import { isToolUIPart } from 'ai';
import { memo } from 'react';
/** One message: the person's text as written, or the assistant's parts (text, reasoning, tool cards) in order. */
import { AttachmentChips } from '@/components/files/attachment-chips';
import { useChatFiles } from '@/components/files/chat-files-context';
import { ElicitationCard } from '@/components/tools/elicitation-card';
import { ToolPart } from '@/components/tools/tool-part';
import type { Attachment, ChatDataParts, ChatMessage, VersionGroup } from '@/server/chat/wire-types';
import { splitInvocation } from '@/server/skills/invocation';
import { CopyButton } from './copy-button';
import { Markdown } from './markdown';
import { VersionSwitcher } from './message-versions';

type Part = ChatMessage['parts'][number];

/** Splits a leading `/skill-name` off so the invocation reads as a command, not prose (any Unicode name). */
function commandOf(text: string): { command: string | null; rest: string } {
  const invocation = splitInvocation(text);
  if (!invocation) return { command: null, rest: text };
  const at = text.indexOf(invocation.command) + invocation.command.length;
  return { command: invocation.command, rest: text.slice(at) };
}

function MessageAttachments({ files }: { files: Attachment[] | undefined }) {
  const chat = useChatFiles();
  return files ? <AttachmentChips chatId={chat?.chatId ?? null} files={files} /> : null;
}

/** When the message was written, in the reader's time zone (the server renders its own; the browser corrects it). */
function MessageTime({ at }: { at: number | undefined }) {
  if (at === undefined) return null;
  const date = new Date(at);
  return (
    <time
      className="message__time"
      dateTime={date.toISOString()}
      title={date.toLocaleString()}
      data-testid="message-time"
      suppressHydrationWarning
    >
      {date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}
    </time>
  );
}

/** What a message offers besides its text: Edit (a sent message) and the versions switcher. */
export interface MessageVersionProps {
  /** The group of versions that starts at this message, if any. */
  group?: VersionGroup;
  /** An answer is running: nothing may change the history. */
  busy?: boolean;
  onSwitchVersion?: (parentId: string, version: number) => void;
  /** Set on the person's messages: opens the inline editor for this message. */
  onEdit?: (messageId: string) => void;
  /** The search hit the chat was opened at: marked until the page is left. */
  hit?: boolean;
}

function UserMessage({
  message,
  group,
  busy,
  onSwitchVersion,
  onEdit,
  hit,
}: { message: ChatMessage } & MessageVersionProps) {
  const text = message.parts
    .filter((p): p is Extract<Part, { type: 'text' }> => p.type === 'text')
    .map((p) => p.text)
    .join('\n');
  const { command, rest } = commandOf(text);
  return (
    <div
      className={`message message--user${hit ? ' message--hit' : ''}`}
      data-testid="message-user"
      data-message-id={message.id}
      data-search-hit={hit || undefined}
    >
      <div className="bubble bubble--user">
        {command ? <span className="invocation">{command}</span> : null}
        {rest}
      </div>
      <MessageAttachments files={message.metadata?.attachments} />
      <div className="message__meta message__meta--user">
        {group && onSwitchVersion ? (
          <VersionSwitcher group={group} disabled={busy === true} onSwitch={onSwitchVersion} what="message" />
        ) : null}
        {onEdit ? (
          <button
            type="button"
            className="copy-button"
            aria-label="Edit this message and send it again"
            disabled={busy}
            onClick={() => onEdit(message.id)}
            data-testid="message-edit"
          >
            Edit
          </button>
        ) : null}
        <MessageTime at={message.metadata?.createdAt} />
      </div>
    </div>
  );
}

/** Where the model's input of this answer starts: earlier messages were summarised (a real model) or left out. */
function CompactionDivider({ data }: { data: ChatDataParts['compaction'] }) {
  if (!data.summarised) {
    return (
      <div className="compaction-divider" data-testid="compaction-divider" data-kind="dropped" role="note">
        <span>Earlier messages left out to fit the model's context window</span>
      </div>
    );
  }
  return (
    <div className="compaction-divider" data-testid="compaction-divider" data-kind="summarised" role="note">
      {data.summary ? (
        <details className="compaction-divider__details">
          <summary>Earlier messages summarised</summary>
          <p className="compaction-divider__summary" data-testid="compaction-summary">
            {data.summary}
          </p>
        </details>
      ) : (
        <span>Earlier messages summarised</span>
      )}
    </div>
  );
}

function Elicitation({ id, part }: { id: string | undefined; part: ChatDataParts['elicitation'] }) {
  const chat = useChatFiles();
  return id ? <ElicitationCard id={id} part={part} chatId={chat?.chatId ?? null} /> : null;
}

function AssistantPart({ part, streaming }: { part: Part; streaming: boolean }) {
  if (part.type === 'text') {
    if (!part.text) return null;
    return (
      <div className="assistant-text" data-testid="assistant-text">
        <Markdown text={part.text} streaming={streaming && part.state === 'streaming'} />
      </div>
    );
  }
  if (part.type === 'reasoning') {
    if (!part.text) return null;
    return (
      <details className="reasoning">
        <summary>Reasoning</summary>
        <p>{part.text}</p>
      </details>
    );
  }
  if (isToolUIPart(part)) return <ToolPart part={part} />;
  if (part.type === 'data-compaction') return <CompactionDivider data={part.data} />;
  if (part.type === 'data-elicitation') return <Elicitation id={part.id} part={part.data} />;
  // Data parts (activations feed the header chips), step boundaries and sources have no inline rendering.
  return null;
}

export const Message = memo(function Message({
  message,
  streaming,
  ...versions
}: { message: ChatMessage; streaming: boolean } & MessageVersionProps) {
  if (message.role === 'user') return <UserMessage message={message} {...versions} />;
  if (message.role !== 'assistant') return null;
  return (
    <div
      className={`message message--assistant${versions.hit ? ' message--hit' : ''}`}
      data-testid="message-assistant"
      data-message-id={message.id}
      data-search-hit={versions.hit || undefined}
      aria-busy={streaming || undefined}
    >
      <div className="assistant-body">
        {message.parts.map((part, index) => (
          <AssistantPart
            // Parts only ever append while streaming, so the index is stable; tool parts have their own id.
            key={isToolUIPart(part) ? part.toolCallId : `${part.type}-${index}`}
            part={part}
            streaming={streaming}
          />
        ))}
      </div>
      {message.metadata?.status ? (
        <p className="message__status" data-testid="message-status" data-status={message.metadata.status} role="note">
          {STATUS_TEXT[message.metadata.status]}
          {message.metadata.error ? `: ${message.metadata.error}` : '.'}
        </p>
      ) : null}
      {message.metadata?.model || message.metadata?.createdAt || !streaming || versions.group ? (
        <div className="message__meta">
          {versions.group && versions.onSwitchVersion ? (
            <VersionSwitcher
              group={versions.group}
              disabled={versions.busy === true}
              onSwitch={versions.onSwitchVersion}
              what="answer"
            />
          ) : null}
          {streaming ? null : <CopyButton message={message} />}
          {message.metadata?.model ? <span data-testid="answer-model">{message.metadata.model}</span> : null}
          {message.metadata?.model && message.metadata?.createdAt ? ' · ' : null}
          <MessageTime at={message.metadata?.createdAt} />
        </div>
      ) : null}
      {message.metadata?.modelNote ? (
        <p className="message__status" data-testid="answer-model-note" role="note">
          {message.metadata.modelNote}
        </p>
      ) : null}
    </div>
  );
});

const STATUS_TEXT = {
  interrupted: 'This answer was interrupted: the server stopped while writing it',
  aborted: 'Stopped',
  error: 'This answer failed',
} as const;
