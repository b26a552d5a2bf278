/**
 * The chat's wire types, shared by the route handlers and the browser (import with `import type` from components).
 * Tool names and display names: server/tools/names.ts; each tool's input and output: its declaration in
 * server/tools/.
 */
import type { UIMessage } from 'ai';
import type { FileTextState } from '../documents/extract';
import type { ElicitationView } from '../mcp/elicitation';
import type { ToolTypes } from '../tools';

export type { DocumentParts, FileTextState } from '../documents/extract';
export type {
  ActivateInput,
  ActivateOutput,
  ProducedFile,
  ReadResourceInput,
  ReadResourceOutput,
  RunScriptInput,
  RunScriptOutput,
  SearchInput,
  SearchOutput,
} from '../tools';

/** Failures are thrown from `execute` with a safe message: the part arrives as `output-error` with `errorText`. */

export interface ChatMessageMetadata {
  /** Label of the model that answered, e.g. `Offline model (built-in)`. */
  model?: string;
  /** Why another model answered than the chat's pick (it was not available), shown under the answer. */
  modelNote?: string;
  createdAt?: number;
  /**
   * Set on stored answers that did not complete, when a chat is loaded: `interrupted` (the server stopped while it
   * was being written), `aborted` (Stop), `error` (the model or a tool failed; `error` says why).
   */
  status?: 'interrupted' | 'aborted' | 'error';
  error?: string;
  /** Workspace files the person attached to this message (already uploaded; shown as chips). */
  attachments?: Attachment[];
}

/** A file in the chat workspace as the upload route answers it. */
export interface Attachment {
  name: string;
  size: number;
  mediaType: string;
}

export interface WorkspaceFileView extends Attachment {
  origin: 'upload' | 'script';
  createdAt: string;
  /** Set when the chat's latest run that changed files created or changed this one. */
  change?: 'created' | 'changed';
  /** Whether the file's text was read for the model (uploads), and why not when it could not be. */
  text?: FileTextState;
}

/** An MCP server's request for the person's input during a tool call (chat/elicitations.ts), and its outcome. */
export interface ElicitationPart {
  toolCallId: string;
  server: string;
  tool: string;
  view: ElicitationView;
  /** `withdrawn`: the call ended before an answer. */
  status: 'waiting' | 'accept' | 'decline' | 'cancel' | 'withdrawn';
}

export type ChatDataParts = {
  elicitation: ElicitationPart;
  /** Sent after each activation so the header chips update live. */
  activations: { names: string[] };
  /**
   * The oldest messages were left out of this answer's input to fit the model's context window: `dropped` model
   * messages, replaced by a summary when `summarised` (a real model). The turn that wrote the summary stores it here
   * (`summary`, covering every message up to `through`), so later turns reuse it (server/chat/compaction.ts).
   */
  compaction: { dropped: number; summarised?: boolean; summary?: string; through?: string };
};

export type ChatTools = ToolTypes;

export type ChatMessage = UIMessage<ChatMessageMetadata, ChatDataParts, ChatTools>;

/** A person's answer to an approval prompt on a tool card. */
export interface ApprovalAnswer {
  approvalId: string;
  approved: boolean;
  /** "Always allow": store a grant tied to the skill's current content. */
  always?: boolean;
}

/**
 * Request body of POST /api/chat. The client sends only the newest user message; for approvals only the answers
 * (the server applies them to the stored message: tool parts are never taken from a browser).
 */
export interface ChatRequestBody {
  chatId: string;
  /** The new user message; only for `submit-message`. */
  message?: ChatMessage;
  trigger: 'submit-message' | 'regenerate-message' | 'approval-response';
  approvals?: ApprovalAnswer[];
  /** Set (to `message.id`) when the message edits a sent one; the later answers become a version. */
  messageId?: string;
}

/**
 * A group of versions on the chat's path, shown under the first message after `parentId` (`''`: the
 * chat's first message): version `index` of `count`, 1-based.
 */
export interface VersionGroup {
  parentId: string;
  index: number;
  count: number;
}

export interface ChatSummary {
  id: string;
  title: string;
  /** The model picked for the chat (`provider:model`); absent: the app's default. */
  model?: string;
  createdAt: number;
  updatedAt: number;
  /** Search results only: words around the match in a message (none when the title matched). */
  snippet?: string;
  /** Search results only: the message the snippet is from; the hit opens the chat at it. */
  messageId?: string;
}

/**
 * A long chat is loaded a page at a time. A page of messages, oldest first, and whether the chat has more
 * before its first or after its last (`GET /api/chats/:id/messages`).
 */
export interface MessagePage {
  messages: ChatMessage[];
  hasEarlier: boolean;
  hasLater: boolean;
}

/**
 * What the chat page shows of a long chat: the newest messages (`messages`, the tail that `useChat` holds) and,
 * above them, messages loaded earlier (`earlier`: older pages, or the window around a search hit). `gap`: messages
 * between `earlier` and the tail are not loaded yet.
 */
export interface ChatWindow {
  messages: ChatMessage[];
  earlier: EarlierMessages;
}

export interface EarlierMessages {
  messages: ChatMessage[];
  /** Messages exist before the first one loaded. */
  hasEarlier: boolean;
  /** Messages between the last of these and the tail are not loaded. */
  gap: boolean;
}

export interface ChatActivation {
  skillName: string;
  count: number;
  firstAt: number;
  lastAt: number;
  lastHow: 'explicit' | 'model';
}

export interface SkillSummary {
  name: string;
  description: string;
}
