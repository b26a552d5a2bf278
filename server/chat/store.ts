/**
 * What a chat turn needs from persistence. The DB-backed implementation wires the named queries of `server/db`;
 * keeping the interface here lets the turn be exercised against a fresh database in tests.
 */
import type { ConsentStore } from '../consent/service';
import type { MessageCursor, ScriptRunInput } from '../db';
import type { ActivationHow } from '../tools';
import type { WindowStart } from './message-pages';
import type { TurnLeases } from './running/leases';
import type { ChatActivation, ChatMessage, ChatSummary, ChatWindow, MessagePage, VersionGroup } from './wire-types';

export type AnswerStatus = 'complete' | 'aborted' | 'error' | 'interrupted';

export interface ChatView {
  chat: ChatSummary;
  messages: ChatMessage[];
  activations: ChatActivation[];
  /** The groups of versions on the active path (edited messages, regenerated answers). */
  versions?: VersionGroup[];
}

/** What the chat page starts with: `ChatView` with only the newest messages and the window at a start. */
export interface ChatPageView extends ChatWindow {
  chat: ChatSummary;
  activations: ChatActivation[];
  versions: VersionGroup[];
}

/**
 * A person's chats as they read them: every read sees only that person's chats (another person's chat behaves
 * exactly like a missing one). Routes, pages and the turn's context read through these.
 */
export interface ChatReads {
  listChats(): Promise<ChatSummary[]>;
  /** Chats whose title or message text has every word of `query` (as a prefix), most recently active first. */
  searchChats(query: string): Promise<ChatSummary[]>;
  getChat(id: string): Promise<ChatSummary | null>;
  /** Every message of the chat (export, `GET /api/chats/:id`). */
  loadChatView(id: string): Promise<ChatView | null>;
  /** The chat page's view: the newest page of messages, and a window at `start` above it (`message-pages.ts`). */
  loadChatPage(id: string, start?: WindowStart): Promise<ChatPageView | null>;
  /**
   * At most `limit` messages next to `cursor`, within the page budget, shown as `loadChatView` shows them.
   * Null when the chat is not the person's; throws `not_found:message` when the cursor's message is not in it.
   */
  loadMessagePage(chatId: string, cursor: MessageCursor, limit: number): Promise<MessagePage | null>;
  getMessages(chatId: string): Promise<ChatMessage[]>;
  listVersions(chatId: string): Promise<VersionGroup[]>;
  /** The skills active in the chat, each with the version its latest activation was approved under. */
  getActivations(chatId: string): Promise<{ name: string; version: string | null }[]>;
  /** Activations per skill across all chats (catalog ranking when skills must be left out); kept a minute. */
  usageCounts(): Promise<ReadonlyMap<string, number>>;
}

/** What a person does to a chat outside a turn: the sidebar's and the chat header's writes. */
export interface ChatEdits {
  /**
   * Idempotent for an existing id of this person: returns it with `created: false`. An id owned by another
   * person throws `DbError('chat-not-found')` (a 404, never a takeover).
   */
  createChat(input: { id?: string; title?: string }): Promise<{ chat: ChatSummary; created: boolean }>;
  renameChat(id: string, title: string): Promise<ChatSummary | null>;
  /** Picks the chat's model (null: the app's default). Null when the chat does not exist. */
  setChatModel(id: string, model: string | null): Promise<ChatSummary | null>;
  deleteChat(id: string): Promise<boolean>;
  /** Makes version `version` of the group after `parentId` active. False when the chat is not the person's. */
  switchVersion(chatId: string, parentId: string, version: number): Promise<boolean>;
}

/** What a turn writes: the lease, the person's message, the answer as it streams and ends, activations, runs. */
export interface TurnWrites {
  /** The running-turn leases shared by instances (`running/leases.ts`); absent, only this process's slots guard. */
  readonly leases?: TurnLeases;
  /**
   * Takes this instance's lease of the chat for a turn: false while a live turn of another instance holds it. In
   * `transaction`, the lease commits with the transaction's other writes (none of its own) and is watched from that
   * commit on (`TurnLeases.acquire`: `abort` is called on a Stop pressed elsewhere).
   */
  takeLease(chatId: string, abort: () => void): Promise<boolean>;
  saveUserMessage(chatId: string, message: ChatMessage): Promise<void>;
  /** Names the chat `title` (derived from its first message, `request.ts` `titleOf`) unless it has a name already. */
  setTitleFromFirstMessage(chatId: string, title: string): Promise<void>;
  /** Sets a title the app chose (the model's) only while the chat is still called `expected`; false otherwise. */
  renameChatIfTitle(chatId: string, expected: string, title: string): Promise<boolean>;
  deleteMessagesAfter(chatId: string, messageId: string): Promise<void>;
  /**
   * Keeps the tail after `parentId` (`''`: the chat's start) as a version and puts `replacement` in its place
   * (null: nothing yet, the answer about to stream). Throws `chat-not-found` for another person's chat.
   */
  replaceTail(chatId: string, parentId: string, replacement: ChatMessage | null): Promise<void>;
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
  recordActivation(chatId: string, skillName: string, how: ActivationHow, version?: string | null): Promise<void>;
  /** Replaces a stored message by id, keeping its position (approval answers). */
  replaceMessage(chatId: string, message: ChatMessage): Promise<void>;
  /** `replaceMessage` only while the stored parts are still `expected`; false when another request changed them. */
  replaceMessageIfUnchanged(chatId: string, message: ChatMessage, expected: ChatMessage['parts']): Promise<boolean>;
  recordScriptRun(input: ScriptRunInput & { chatId: string }): Promise<void>;
  /**
   * Runs `fn` with a store whose writes make one transaction, so they cost one durable commit (the turn's start: the
   * lease, the trigger's change to the history and the answer's `streaming` row). `fn` awaits only that store's
   * work; the store it is given has no `leases` (its `takeLease` takes them).
   */
  transaction<T>(fn: (store: ChatStore) => Promise<T>): Promise<T>;
}

/**
 * One person's store, by concept: their chats as read (`ChatReads`), their edits (`ChatEdits`), a turn's writes
 * (`TurnWrites`) and consent (`consent`: grants and the log of answers, global rather than the person's). A module
 * that needs one concept takes that interface.
 */
export interface ChatStore extends ChatReads, ChatEdits, TurnWrites {
  /** The person this store acts for. */
  readonly userId: string;
  /** Grants and the log of answers to approval cards (server/consent/service.ts): global, not the person's. */
  readonly consent: ConsentStore;
}

/** The app's store: scoped per person (`forUser(currentUserId(request))` in routes). */
export interface ChatStores {
  forUser(userId: string): ChatStore;
}
