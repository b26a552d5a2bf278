/**
 * What a chat turn needs from persistence. The DB-backed implementation wires the named queries of `server/db`;
 * keeping the interface here lets the turn be exercised against a fresh database in tests.
 */
import type { ConsentStore } from '../consent/service';
import type { MessageCursor, ScriptRunInput } from '../db';
import type { ActivationHow } from '../tools';
import type { WindowStart } from './history';
import type { TurnLeases } from './turn/leases';
import type { ChatActivation, ChatMessage, ChatSummary, ChatWindow, MessagePage, VersionGroup } from './types';

export type AnswerStatus = 'complete' | 'aborted' | 'error' | 'interrupted';

export interface ChatView {
  chat: ChatSummary;
  messages: ChatMessage[];
  activations: ChatActivation[];
  /** Issue 13: the groups of versions on the active path (edited messages, regenerated answers). */
  versions?: VersionGroup[];
}

/** Issue 26: what the chat page starts with: `ChatView` with only the newest messages and the window at a start. */
export interface ChatPageView extends ChatWindow {
  chat: ChatSummary;
  activations: ChatActivation[];
  versions: VersionGroup[];
}

/**
 * One person's view of the chats: every method that touches a chat sees only that person's chats (another
 * person's chat behaves exactly like a missing one). Grants, skill modes and usage counts stay global.
 */
export interface ChatStore {
  /** The person this store acts for. */
  readonly userId: string;
  /** The running-turn leases shared by instances (`turn/leases.ts`); absent, only this process's slots guard. */
  readonly leases?: TurnLeases;
  /**
   * Takes this instance's lease of the chat for a turn: false while a live turn of another instance holds it. In
   * `transaction`, the lease commits with the transaction's other writes (none of its own) and is watched from that
   * commit on (`TurnLeases.acquire`: `abort` is called on a Stop pressed elsewhere).
   */
  takeLease(chatId: string, abort: () => void): Promise<boolean>;
  listChats(): Promise<ChatSummary[]>;
  /** Chats whose title or message text has every word of `query` (as a prefix), most recently active first. */
  searchChats(query: string): Promise<ChatSummary[]>;
  /**
   * Idempotent for an existing id of this person: returns it with `created: false`. An id owned by another
   * person throws `DbError('chat-not-found')` (a 404, never a takeover).
   */
  createChat(input: { id?: string; title?: string }): Promise<{ chat: ChatSummary; created: boolean }>;
  renameChat(id: string, title: string): Promise<ChatSummary | null>;
  /** Picks the chat's model (null: the app's default). Null when the chat does not exist. */
  setChatModel(id: string, model: string | null): Promise<ChatSummary | null>;
  deleteChat(id: string): Promise<boolean>;
  /** Every message of the chat (export, `GET /api/chats/:id`). */
  loadChatView(id: string): Promise<ChatView | null>;
  /** Issue 26: the chat page's view: the newest page of messages, and a window at `start` above it (`history.ts`). */
  loadChatPage(id: string, start?: WindowStart): Promise<ChatPageView | null>;
  /**
   * Issue 26: at most `limit` messages next to `cursor`, within the page budget, shown as `loadChatView` shows them.
   * Null when the chat is not the person's; throws `not_found:message` when the cursor's message is not in it.
   */
  loadMessagePage(chatId: string, cursor: MessageCursor, limit: number): Promise<MessagePage | null>;
  getChat(id: string): Promise<ChatSummary | null>;
  getMessages(chatId: string): Promise<ChatMessage[]>;
  saveUserMessage(chatId: string, message: ChatMessage): Promise<void>;
  setTitleFromFirstMessage(chatId: string, text: string): Promise<void>;
  /** Sets a title the app chose (the model's) only while the chat is still called `expected`; false otherwise. */
  renameChatIfTitle(chatId: string, expected: string, title: string): Promise<boolean>;
  deleteMessagesAfter(chatId: string, messageId: string): Promise<void>;
  /**
   * Issue 13: keeps the tail after `parentId` (`''`: the chat's start) as a version and puts `replacement` in its
   * place (null: nothing yet, the answer about to stream). Throws `chat-not-found` for another person's chat.
   */
  replaceTail(chatId: string, parentId: string, replacement: ChatMessage | null): Promise<void>;
  /** Makes version `version` of the group after `parentId` active. False when the chat is not the person's. */
  switchVersion(chatId: string, parentId: string, version: number): Promise<boolean>;
  listVersions(chatId: string): Promise<VersionGroup[]>;
  /**
   * `metadata` (the model that answers) is stored with the row, so a reload shows it under the answer. The answer's
   * id is recorded on this instance's lease of the chat, when it holds one, in the same transaction.
   */
  startAssistantMessage(chatId: string, id: string, metadata?: ChatMessage['metadata']): Promise<void>;
  /**
   * Stores the answer's end, marks the chat active (its `updatedAt`) and ends this instance's lease of the chat
   * (`leases.ended`), in one transaction.
   */
  finishAssistantMessage(
    id: string,
    result: { parts: ChatMessage['parts']; status: AnswerStatus; error?: string; metadata?: ChatMessage['metadata'] },
  ): Promise<void>;
  /** The parts so far of a streaming answer; a no-op once it is finished. */
  saveAnswerProgress(id: string, parts: ChatMessage['parts']): Promise<void>;
  getActivatedNames(chatId: string): Promise<string[]>;
  recordActivation(chatId: string, skillName: string, how: ActivationHow): Promise<void>;
  /** Replaces a stored message by id, keeping its position (approval answers). */
  replaceMessage(chatId: string, message: ChatMessage): Promise<void>;
  /** `replaceMessage` only while the stored parts are still `expected`; false when another request changed them. */
  replaceMessageIfUnchanged(chatId: string, message: ChatMessage, expected: ChatMessage['parts']): Promise<boolean>;
  /** Activations per skill across all chats (catalog ranking when skills must be left out); kept a minute. */
  usageCounts(): Promise<ReadonlyMap<string, number>>;
  /** Grants and the log of answers to approval cards (server/consent/service.ts): global, not the person's. */
  readonly consent: ConsentStore;
  recordScriptRun(input: ScriptRunInput & { chatId: string }): Promise<void>;
  /**
   * Runs `fn` with a store whose writes make one transaction, so they cost one durable commit (the turn's start: the
   * lease, the trigger's change to the history and the answer's `streaming` row). `fn` awaits only that store's
   * work; the store it is given has no `leases` (its `takeLease` takes them).
   */
  transaction<T>(fn: (store: ChatStore) => Promise<T>): Promise<T>;
}

/** The app's store: scoped per person (`forUser(currentUserId(request))` in routes). */
export interface ChatStores {
  forUser(userId: string): ChatStore;
}
