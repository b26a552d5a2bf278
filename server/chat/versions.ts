/**
 * Browsing versions of a chat (edited messages, regenerated answers). The switch takes the chat's turn
 * slot and its lease (shared by instances) for its few queries, so it never moves a tail an answer is being written into (409 while one runs).
 */
import { z } from 'zod';
import { AppError } from '../errors';
import { notFound } from '../http';
import type { RunningTurns } from './running/active-turns';
import type { ChatStore } from './store';
import type { ChatWindow, VersionGroup } from './wire-types';

export const switchVersionSchema = z
  .object({
    /** The message the group hangs after (`''`: the chat's start). */
    parentId: z.string().max(100),
    version: z.number().int().min(1).max(10_000),
  })
  .strict();

/**
 * The chat after a switch (a long chat is not sent whole): the newest page, and above it the window from
 * the switched group on (`earlier`), so the page can keep what it shows before the group and replace the rest.
 */
export interface VersionsView extends ChatWindow {
  versions: VersionGroup[];
}

export async function switchChatVersion(
  store: ChatStore,
  turns: Pick<RunningTurns, 'claim'>,
  chatId: string,
  raw: unknown,
): Promise<VersionsView> {
  const parsed = switchVersionSchema.safeParse(raw);
  if (!parsed.success) {
    throw new AppError('bad_request:chat', `Invalid version switch: ${parsed.error.issues[0]?.message}`);
  }
  if (!(await store.getChat(chatId))) throw notFound('chat', chatId);
  const turn = turns.claim(chatId);
  try {
    // And the lease every instance shares: an answer running on another instance is a 409 too.
    const leases = store.leases;
    if (leases) {
      if (!(await leases.acquire(chatId, () => turn.controller.abort()))) {
        throw new AppError('conflict:chat', 'This chat is still answering; stop it or wait for the answer to end');
      }
      turn.beforeRelease = () => leases.release(chatId);
    }
    await store.switchVersion(chatId, parsed.data.parentId, parsed.data.version);
  } finally {
    turn.release();
  }
  const view = await store.loadChatPage(chatId, { after: parsed.data.parentId });
  if (!view) throw notFound('chat', chatId);
  return { messages: view.messages, earlier: view.earlier, versions: view.versions };
}
