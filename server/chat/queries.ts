/** Read models for server components (pages). Route handlers use `getApp().store` directly. */
import { getApp } from '../app';
import type { ModelMenu } from '../model/registry';
import type { ChatView } from './store';
import type { ChatSummary } from './types';

export async function loadChatView(id: string): Promise<ChatView | null> {
  return getApp().store.loadChatView(id);
}

export function listChatSummaries(): ChatSummary[] {
  return getApp().store.listChats();
}

/**
 * The model picker's first list: what is known without waiting for discovery (so no page waits on a model server);
 * the picker asks `/api/models` for the full list once shown.
 */
export function modelMenu(): ModelMenu {
  const { models } = getApp();
  return { models: models.known(), defaultId: models.defaultId };
}
