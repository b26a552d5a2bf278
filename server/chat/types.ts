/**
 * The chat's wire types, shared by the route handlers and the browser (import with `import type` from components).
 * Tool names on the wire use `_` (OpenAI allows `^[a-zA-Z0-9_-]{1,64}$`); people see them with a dot.
 */
import type { UIMessage } from 'ai';
import type { ResourceResult } from '../skills/resources';

export const TOOL_ACTIVATE = 'skills_activate';
export const TOOL_READ_RESOURCE = 'skills_readResource';
export const TOOL_RUN_SCRIPT = 'skills_runScript';
export const TOOL_SEARCH = 'skills_search';

/** Display names, also used in `data-testid="tool-card-<display name>"`. */
export const TOOL_DISPLAY_NAMES: Record<string, string> = {
  [TOOL_ACTIVATE]: 'skills.activate',
  [TOOL_READ_RESOURCE]: 'skills.readResource',
  [TOOL_RUN_SCRIPT]: 'skills.runScript',
  [TOOL_SEARCH]: 'skills.search',
};

export interface ActivateInput {
  name: string;
}

export interface ActivateOutput {
  name: string;
  description: string;
  /** Skill folder for display: relative to its root, prefixed with the root's short label (e.g. `.skills/pdf`). */
  location: string;
  /** The SKILL.md body. Empty when `alreadyActive`. */
  instructions: string;
  /** Files in the skill folder (relative paths), capped. */
  resources: string[];
  truncated: boolean;
  notice?: string;
  /** The skill was already active in this chat: its instructions are not repeated. */
  alreadyActive?: boolean;
  /** `allowed-tools` from the frontmatter: shown to people, grants nothing by itself. */
  allowedTools?: string;
  how: 'explicit' | 'model';
}

export interface ReadResourceInput {
  name: string;
  path: string;
}

/** What the confined reader returns for a file, plus the skill's name. */
export type ReadResourceOutput = Omit<Extract<ResourceResult, { ok: true }>, 'ok'> & { name: string };

export interface RunScriptInput {
  name: string;
  path: string;
  args?: string[];
}

export interface RunScriptOutput {
  name: string;
  path: string;
  args: string[];
  exitCode: number;
  stdout: string;
  stderr: string;
  durationMs: number;
  truncated: boolean;
  timedOut: boolean;
  /** Why the sandbox stopped the script (limits, read-only folder), when it did. */
  error?: string;
  /** Workspace files the run created or changed (download: GET /api/chats/:id/files/:name). */
  files?: ProducedFile[];
}

export interface ProducedFile {
  name: string;
  size: number;
  mediaType: string;
  status: 'created' | 'changed';
}

export interface SearchInput {
  query: string;
  limit?: number;
}

export interface SearchOutput {
  query: string;
  results: Array<{ name: string; description: string; score: number }>;
}

/** Failures are thrown from `execute` with a safe message: the part arrives as `output-error` with `errorText`. */

export interface ChatMessageMetadata {
  /** Label of the model that answered, e.g. `Offline model (built-in)`. */
  model?: string;
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
}

export type ChatDataParts = {
  /** Sent after each activation so the header chips update live. */
  activations: { names: string[] };
};

export type ChatTools = {
  [TOOL_ACTIVATE]: { input: ActivateInput; output: ActivateOutput };
  [TOOL_READ_RESOURCE]: { input: ReadResourceInput; output: ReadResourceOutput };
  [TOOL_RUN_SCRIPT]: { input: RunScriptInput; output: RunScriptOutput };
  [TOOL_SEARCH]: { input: SearchInput; output: SearchOutput };
};

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
}

export interface ChatSummary {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
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
