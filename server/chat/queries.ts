/** Read models for server components (pages). Route handlers use `storeFor(request)` directly. */
import { headers } from 'next/headers';
import { getApp, storeFor } from '../app';
import type { ModelMenu } from '../model/registry';
import type { ChatView } from './store';
import type { ChatSummary } from './types';

export async function loadChatView(id: string): Promise<ChatView | null> {
  return (await storeFor(await headers())).loadChatView(id);
}

export async function listChatSummaries(): Promise<ChatSummary[]> {
  return (await storeFor(await headers())).listChats();
}

/**
 * The model picker's first list: what is known without waiting for discovery (so no page waits on a model server);
 * the picker asks `/api/models` for the full list once shown.
 */
export async function modelMenu(): Promise<ModelMenu> {
  const { models } = await getApp();
  return { models: models.known(), defaultId: models.defaultId };
}
