/** The `ChatStore` over SQLite: a thin adapter from the chat's needs to the named queries of `server/db`. */

import type { Db } from '../db';
import {
  activationCountsBySkill,
  addGrant,
  type Chat,
  DEFAULT_CHAT_TITLE,
  deleteChat,
  deleteMessagesAfter,
  deriveTitle,
  ensureChat,
  finishAssistantMessage,
  getChat,
  getChatActivations,
  getMessageRecords,
  getMessages,
  hasGrant,
  listChats,
  recordActivation,
  recordDecision,
  recordScriptRun,
  renameChat,
  renameChatIfTitle,
  replacePartsIfUnchanged,
  type StoredMessage,
  saveAnswerProgress,
  saveMessage,
  saveUserMessage,
  searchChats,
  setChatModel,
  startAssistantMessage,
  touchChat,
} from '../db';
import type { ChatStore } from './store';
import type { ChatActivation, ChatMessage, ChatSummary } from './types';

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

/** The store over the app's one connection (the composition root's `db`). */
export function createDbChatStore(connection: Db): ChatStore {
  const db = () => connection;
  const activationsOf = (chatId: string): ChatActivation[] =>
    getChatActivations(chatId, db()).map((a) => ({
      skillName: a.skillName,
      count: a.count,
      firstAt: a.firstAt.getTime(),
      lastAt: a.lastAt.getTime(),
      lastHow: a.lastHow,
    }));

  return {
    listChats: () => listChats({}, db()).map(summary),
    searchChats: (query) =>
      searchChats(query, {}, db()).map((hit) => ({
        ...summary(hit.chat),
        ...(hit.snippet ? { snippet: hit.snippet } : {}),
      })),
    createChat: ({ id, title }) => {
      const { chat, created } = ensureChat({ id: id ?? crypto.randomUUID(), title }, db());
      return { chat: summary(chat), created };
    },
    renameChat: (id, title) => {
      const chat = renameChat(id, title, db());
      return chat ? summary(chat) : null;
    },
    setChatModel: (id, model) => {
      const chat = setChatModel(id, model, db());
      return chat ? summary(chat) : null;
    },
    deleteChat: (id) => deleteChat(id, db()),
    loadChatView: (id) => {
      const chat = getChat(id, db());
      if (!chat) return null;
      return {
        chat: summary(chat),
        messages: withStatus(getMessageRecords<ChatMessage>(id, db())),
        activations: activationsOf(id),
      };
    },
    getChat: (id) => {
      const chat = getChat(id, db());
      return chat ? summary(chat) : null;
    },
    getMessages: (chatId) => getMessages<ChatMessage>(chatId, db()),
    saveUserMessage: (chatId, message) => {
      saveUserMessage(chatId, message, db());
    },
    setTitleFromFirstMessage: (chatId, text) => {
      const chat = getChat(chatId, db());
      // Only a chat still called by the default title gets one from its first message; a name given by a person stays.
      if (chat && chat.title === DEFAULT_CHAT_TITLE) renameChat(chatId, deriveTitle(text), db());
    },
    renameChatIfTitle: (chatId, expected, title) => renameChatIfTitle(chatId, expected, title, db()),
    deleteMessagesAfter: (chatId, messageId) => {
      deleteMessagesAfter(chatId, messageId, {}, db());
    },
    startAssistantMessage: (chatId, id, metadata) => {
      startAssistantMessage(chatId, id, metadata ? { metadata } : {}, db());
    },
    finishAssistantMessage: (id, result) => {
      finishAssistantMessage(
        id,
        {
          parts: result.parts,
          status: result.status,
          error: result.error ?? null,
          ...(result.metadata ? { metadata: result.metadata } : {}),
        },
        db(),
      );
    },
    saveAnswerProgress: (id, parts) => {
      saveAnswerProgress(id, parts, db());
    },
    touchChat: (chatId) => {
      touchChat(chatId, new Date(), db());
    },
    getActivatedNames: (chatId) => activationsOf(chatId).map((a) => a.skillName),
    recordActivation: (chatId, skillName, how) => {
      recordActivation(chatId, skillName, how, new Date(), db());
    },
    replaceMessage: (chatId, message) => {
      saveMessage(chatId, message, { status: 'complete' }, db());
    },
    replaceMessageIfUnchanged: (chatId, message, expected) => replacePartsIfUnchanged(chatId, message, expected, db()),
    usageCounts: () => new Map(activationCountsBySkill(db()).map((c) => [c.skillName, c.count])),
    hasGrant: (skillName, contentHash) => hasGrant(skillName, contentHash, db()),
    addGrant: (skillName, contentHash) => {
      addGrant(skillName, contentHash, new Date(), db());
    },
    recordDecision: (input) => recordDecision(input, db()),
    recordScriptRun: (input) => recordScriptRun(input, db()),
  };
}
