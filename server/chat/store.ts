/**
 * What a chat turn needs from persistence. The DB-backed implementation wires the named queries of `server/db`;
 * keeping the interface here lets the turn be exercised against a fresh database in tests.
 */
import type { PermissionDecision, ScriptRunInput } from '../db';
import type { ActivationHow } from '../tools';
import type { ChatActivation, ChatMessage, ChatSummary } from './types';

export type AnswerStatus = 'complete' | 'aborted' | 'error' | 'interrupted';

export interface ChatView {
  chat: ChatSummary;
  messages: ChatMessage[];
  activations: ChatActivation[];
}

export interface ChatStore {
  listChats(): ChatSummary[];
  /** Chats whose title or message text has every word of `query` (as a prefix), most recently active first. */
  searchChats(query: string): ChatSummary[];
  /** Idempotent for an existing id: returns it with `created: false`. */
  createChat(input: { id?: string; title?: string }): { chat: ChatSummary; created: boolean };
  renameChat(id: string, title: string): ChatSummary | null;
  /** Picks the chat's model (null: the app's default). Null when the chat does not exist. */
  setChatModel(id: string, model: string | null): ChatSummary | null;
  deleteChat(id: string): boolean;
  loadChatView(id: string): ChatView | null;
  getChat(id: string): ChatSummary | null;
  getMessages(chatId: string): ChatMessage[];
  saveUserMessage(chatId: string, message: ChatMessage): void;
  setTitleFromFirstMessage(chatId: string, text: string): void;
  /** Sets a title the app chose (the model's) only while the chat is still called `expected`; false otherwise. */
  renameChatIfTitle(chatId: string, expected: string, title: string): boolean;
  deleteMessagesAfter(chatId: string, messageId: string): void;
  /** `metadata` (the model that answers) is stored with the row, so a reload shows it under the answer. */
  startAssistantMessage(chatId: string, id: string, metadata?: ChatMessage['metadata']): void;
  finishAssistantMessage(
    id: string,
    result: { parts: ChatMessage['parts']; status: AnswerStatus; error?: string; metadata?: ChatMessage['metadata'] },
  ): void;
  /** The parts so far of a streaming answer; a no-op once it is finished. */
  saveAnswerProgress(id: string, parts: ChatMessage['parts']): void;
  touchChat(chatId: string): void;
  getActivatedNames(chatId: string): string[];
  recordActivation(chatId: string, skillName: string, how: ActivationHow): void;
  /** Replaces a stored message by id, keeping its position (approval answers). */
  replaceMessage(chatId: string, message: ChatMessage): void;
  /** `replaceMessage` only while the stored parts are still `expected`; false when another request changed them. */
  replaceMessageIfUnchanged(chatId: string, message: ChatMessage, expected: ChatMessage['parts']): boolean;
  /** Activations per skill across all chats (catalog ranking when skills must be left out). */
  usageCounts(): Map<string, number>;
  hasGrant(skillName: string, contentHash: string): boolean;
  addGrant(skillName: string, contentHash: string): void;
  recordDecision(input: { chatId: string; skillName: string; decision: PermissionDecision; contentHash: string }): void;
  recordScriptRun(input: ScriptRunInput & { chatId: string }): void;
}
