/** Read models for server components (pages). Route handlers use `storeFor(request)` directly. */
import { headers } from 'next/headers';
import { cache } from 'react';
import { getApp } from '@/server/app';
import type { ChatPageView } from '@/server/chat/store';
import type { ChatSummary } from '@/server/chat/wire-types';
import type { ModelMenu } from '@/server/model/registry';
import { storeFor } from './store';

/** The viewer's store, looked up once per request (one session check however many reads a page makes). */
const pageStore = cache(async () => storeFor(await headers()));

/** The chat page's view: the newest page of messages, and the window around a search hit above it. */
export async function loadChatPage(id: string, around?: string): Promise<ChatPageView | null> {
  return (await pageStore()).loadChatPage(id, around ? { around } : undefined);
}

export async function listChatSummaries(): Promise<ChatSummary[]> {
  return (await pageStore()).listChats();
}

/**
 * The model picker's first list: what is known without waiting for discovery (so no page waits on a model server);
 * the picker asks `/api/models` for the full list once shown.
 */
export async function modelMenu(): Promise<ModelMenu> {
  const { models } = await getApp();
  return { models: models.known(), defaultId: models.defaultId };
}
