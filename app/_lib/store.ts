/** The chat store of the person asking: the app's stores, for the one person `currentUserId` names. */
import { getApp } from '@/server/app';
import type { ChatStore } from '@/server/chat/store';
import { currentUserId } from './current-user';

export async function storeFor(request: Request | Headers): Promise<ChatStore> {
  const [app, userId] = await Promise.all([getApp(), currentUserId(request)]);
  return app.store.forUser(userId);
}
