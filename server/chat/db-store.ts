/** The `ChatStore` over the database (either dialect): a thin adapter from the chat's needs to the named queries of `server/db`. */

import type { ConsentStore } from '../consent/service';
import { isPersonal, storedSubject, subjectFromStored } from '../consent/subjects';
import type { Database } from '../db';
import {
  addGrant,
  type Chat,
  chatExists,
  DbError,
  DEFAULT_CHAT_TITLE,
  deleteChat,
  deleteMessagesAfter,
  ensureChat,
  finishAssistantMessage,
  getChat,
  getChatActivations,
  getMessagePage,
  getMessageRecords,
  getMessages,
  hasGrant,
  listChats,
  listPersonalGrants,
  listVersionGroups,
  recordActivation,
  recordDecision,
  recordScriptRun,
  releaseTurnLease,
  renameChat,
  renameChatIfTitle,
  replacePartsIfUnchanged,
  replaceTail,
  type StoredMessage,
  saveAnswerProgress,
  saveMessage,
  saveUserMessage,
  searchChats,
  setChatModel,
  setTurnLeaseMessage,
  startAssistantMessage,
  switchVersion,
  usageCounts,
  withTransaction,
} from '../db';
import { LOCAL_USER_ID } from '../db/local-user';
import { notFound } from '../http';
import { budgetPage, loadChatWindow, type PageLoader } from './message-pages';
import { type TurnLeases, turnLeasesFor } from './running/leases';
import type { ChatEdits, ChatReads, ChatStore, ChatStores, TurnWrites } from './store';
import type { ChatActivation, ChatMessage, ChatSummary } from './wire-types';

/**
 * Grants and decisions over `d`, subjects stored as their kind and key (server/consent/subjects.ts); a personal
 * kind's grants are `userId`'s own.
 */
export function consentStoreOn(d: Database, userId: string): ConsentStore {
  return {
    hasGrant: (subject, version) => hasGrant(storedSubject(subject), version, d),
    addGrant: async (subject, version) => {
      await addGrant(storedSubject(subject), version, new Date(), d, isPersonal(subject.kind) ? userId : null);
    },
    personalGrants: async (kind) =>
      (await listPersonalGrants(userId, kind, d)).flatMap((g) => {
        const subject = subjectFromStored({ kind: g.subjectKind, key: g.subject });
        return subject ? [subject] : [];
      }),
    recordDecision: ({ chatId, subject, decision, version }) =>
      recordDecision({ chatId, subject: storedSubject(subject), decision, contentHash: version }, d),
  };
}

/** Stored answers that did not complete say so in their metadata, so a reloaded chat shows why one stops short. */
function withStatus(records: StoredMessage<ChatMessage>[]): ChatMessage[] {
  return records.map(({ message, status, error }) => {
    if (status === 'complete' || status === 'streaming') return message;
    return { ...message, metadata: { ...message.metadata, status, ...(error ? { error } : {}) } };
  });
}

function summary(chat: Chat): ChatSummary {
  return {
    id: chat.id,
    title: chat.title,
    ...(chat.model ? { model: chat.model } : {}),
    createdAt: chat.createdAt.getTime(),
    updatedAt: chat.updatedAt.getTime(),
  };
}

/**
 * The stores over the app's one database handle (the composition root's): `forUser(id)` is that person's view.
 * Chat reads and chat-level writes are scoped to the person; message writes go through the turn, which checks
 * `getChat` (scoped) first.
 */
export function createDbChatStores(d: Database): ChatStores {
  return { forUser: (userId) => createDbChatStore(d, userId) };
}

/** One person's store. */
export function createDbChatStore(d: Database, userId: string = LOCAL_USER_ID): ChatStore {
  const leases = turnLeasesFor(d);
  return { ...storeOn(d, userId, { ownedChats: new Set(), leases, afterCommit: (fn) => fn() }), leases };
}

/** What a person's store and the stores of its transactions share. */
interface Shared {
  /** Chats found to be this person's (see `owned`). */
  ownedChats: Set<string>;
  leases: TurnLeases;
  /** Runs `fn` once the writes so far are committed: at once, or after the transaction `d` belongs to. */
  afterCommit: (fn: () => void) => void;
}

/**
 * The store's methods over `d`: the database, or one of its transactions (`transaction`), by concept: the person's
 * reads of their chats, their edits, a turn's writes, consent.
 */
function storeOn(d: Database, userId: string, shared: Shared): ChatStore {
  const { ownedChats, leases, afterCommit } = shared;
  const activationsOf = async (chatId: string): Promise<ChatActivation[]> =>
    (await getChatActivations(chatId, d)).map((a) => ({
      skillName: a.skillName,
      count: a.count,
      firstAt: a.firstAt.getTime(),
      lastAt: a.lastAt.getTime(),
      lastHow: a.lastHow,
    }));
  // A chat's owner never changes, so a chat found to be this person's stays so for this store (one per request in
  // the app): the turn's reads and writes check it once, not at each of them. A deleted chat is caught by the
  // writes themselves (`chat-not-found` inside their transaction).
  const owned = async (chatId: string) => {
    if (ownedChats.has(chatId)) return true;
    const found = await chatExists(chatId, d, userId);
    if (found) ownedChats.add(chatId);
    return found;
  };

  // A page with the budget applied; null when the cursor's message is not in the chat.
  const pageOf =
    (chatId: string): PageLoader =>
    async (cursor, limit) => {
      const page = await getMessagePage<ChatMessage>(chatId, cursor, limit, d);
      if (!page) return null;
      const { records, hasEarlier, hasLater } = page;
      return budgetPage({ messages: withStatus(records), hasEarlier, hasLater }, cursor);
    };

  const reads: ChatReads = {
    listChats: async () => (await listChats({ userId }, d)).map(summary),
    searchChats: async (query) =>
      (await searchChats(query, { userId }, d)).map((hit) => ({
        ...summary(hit.chat),
        ...(hit.snippet ? { snippet: hit.snippet } : {}),
        ...(hit.messageId ? { messageId: hit.messageId } : {}),
      })),
    getChat: async (id) => {
      const chat = await getChat(id, d, userId);
      if (!chat) return null;
      ownedChats.add(id);
      return summary(chat);
    },
    loadChatView: async (id) => {
      const chat = await getChat(id, d, userId);
      if (!chat) return null;
      return {
        chat: summary(chat),
        messages: withStatus(await getMessageRecords<ChatMessage>(id, d)),
        activations: await activationsOf(id),
        versions: await listVersionGroups(id, d),
      };
    },
    loadChatPage: async (id, start) => {
      const chat = await getChat(id, d, userId);
      if (!chat) return null;
      const [window, activations, versions] = await Promise.all([
        loadChatWindow(pageOf(id), start),
        activationsOf(id),
        listVersionGroups(id, d),
      ]);
      return { chat: summary(chat), ...window, activations, versions };
    },
    loadMessagePage: async (chatId, cursor, limit) => {
      if (!(await owned(chatId))) return null;
      const page = await pageOf(chatId)(cursor, limit);
      if (!page) throw notFound('message', cursor.kind === 'last' ? '' : cursor.id);
      return page;
    },
    getMessages: async (chatId) => ((await owned(chatId)) ? getMessages<ChatMessage>(chatId, d) : []),
    listVersions: async (chatId) => ((await owned(chatId)) ? listVersionGroups(chatId, d) : []),
    getActivations: async (chatId) =>
      (await owned(chatId))
        ? (await getChatActivations(chatId, d)).map((a) => ({ name: a.skillName, version: a.version }))
        : [],
    usageCounts: () => usageCounts(d),
  };
  const edits: ChatEdits = {
    createChat: async ({ id, title }) => {
      const { chat, created } = await ensureChat({ id: id ?? crypto.randomUUID(), title, userId }, d);
      return { chat: summary(chat), created };
    },
    renameChat: async (id, title) => {
      const chat = await renameChat(id, title, d, userId);
      return chat ? summary(chat) : null;
    },
    setChatModel: async (id, model) => {
      const chat = await setChatModel(id, model, d, userId);
      return chat ? summary(chat) : null;
    },
    deleteChat: (id) => {
      ownedChats.delete(id);
      return deleteChat(id, d, userId);
    },
    switchVersion: async (chatId, parentId, version) => {
      if (!(await owned(chatId))) return false;
      await switchVersion(chatId, parentId, version, d);
      return true;
    },
  };
  const writes: Omit<TurnWrites, 'leases' | 'transaction'> = {
    saveUserMessage: async (chatId, message) => {
      if (!(await owned(chatId))) throw new DbError('chat-not-found', `No chat with id ${chatId}`);
      await saveUserMessage(chatId, message, d);
    },
    setTitleFromFirstMessage: async (chatId, title) => {
      // Only a chat still called by the default title gets one from its first message; a name given by a person
      // stays (one conditional update, so a rename in between is never overwritten).
      await renameChatIfTitle(chatId, DEFAULT_CHAT_TITLE, title, d, userId);
    },
    renameChatIfTitle: (chatId, expected, title) => renameChatIfTitle(chatId, expected, title, d, userId),
    deleteMessagesAfter: async (chatId, messageId) => {
      if (await owned(chatId)) await deleteMessagesAfter(chatId, messageId, {}, d);
    },
    replaceTail: async (chatId, parentId, replacement) => {
      if (!(await owned(chatId))) throw new DbError('chat-not-found', `No chat with id ${chatId}`);
      await replaceTail(chatId, parentId, replacement, d);
    },
    takeLease: (chatId, abort) => leases.acquire(chatId, abort, { d, afterCommit }),
    startAssistantMessage: async (chatId, id, metadata) => {
      if (!(await owned(chatId))) throw new DbError('chat-not-found', `No chat with id ${chatId}`);
      // The lease's only other write before its end rides in this commit (none held: nothing to record).
      await withTransaction(d, async (tx) => {
        await startAssistantMessage(chatId, id, metadata ? { metadata } : {}, tx);
        await setTurnLeaseMessage(tx, chatId, leases.instanceId, id);
      });
    },
    finishAssistantMessage: async (id, result) => {
      // The turn's lease ends in the answer's last commit, not in one of its own.
      const ended = await withTransaction(d, async (tx) => {
        const row = await finishAssistantMessage(
          id,
          {
            parts: result.parts,
            status: result.status,
            error: result.error ?? null,
            ...(result.metadata ? { metadata: result.metadata } : {}),
          },
          tx,
        );
        return row && (await releaseTurnLease(tx, row.chatId, leases.instanceId)) ? row.chatId : null;
      });
      if (ended) afterCommit(() => leases.ended(ended));
    },
    saveAnswerProgress: async (id, parts) => {
      await saveAnswerProgress(id, parts, d);
    },
    recordActivation: async (chatId, skillName, how, version) => {
      await recordActivation(chatId, skillName, how, new Date(), d, version ?? null);
    },
    replaceMessage: async (chatId, message) => {
      if (!(await owned(chatId))) throw new DbError('chat-not-found', `No chat with id ${chatId}`);
      await saveMessage(chatId, message, { status: 'complete' }, d);
    },
    replaceMessageIfUnchanged: async (chatId, message, expected) =>
      (await owned(chatId)) && replacePartsIfUnchanged(chatId, message, expected, d),
    recordScriptRun: (input) => recordScriptRun(input, d),
  };
  return {
    userId,
    ...reads,
    ...edits,
    ...writes,
    consent: consentStoreOn(d, userId),
    transaction: async (fn) => {
      const committed: Array<() => void> = [];
      const result = await withTransaction(d, (tx) =>
        fn(storeOn(tx, userId, { ownedChats, leases, afterCommit: (then) => committed.push(then) })),
      );
      for (const then of committed) afterCommit(then);
      return result;
    },
  };
}
