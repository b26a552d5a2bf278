/** Read models for server components (pages). Route handlers use `getApp().store` directly. */
import { getApp } from '../app';
import type { ChatView } from './store';
import type { ChatSummary } from './types';

export async function loadChatView(id: string): Promise<ChatView | null> {
  return getApp().store.loadChatView(id);
}

export function listChatSummaries(): ChatSummary[] {
  return getApp().store.listChats();
}

export function modelInfo(): { label: string; kind: 'offline' | 'openai' } {
  const { model } = getApp();
  return { label: model.label, kind: model.kind };
}
