import { storeFor } from '@/app/_lib/store';
import { parseMessagePageQuery } from '@/server/chat/message-pages';
import { chatIdFrom } from '@/server/chat/request';
import { handle, json, notFound } from '@/server/http';

export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ id: string }> };

/**
 * A page of a long chat, `?before=<messageId>` or `?after=<messageId>` (neither: the newest), `&limit=`
 * (1-200, default 50; a page also stops at a byte budget) -> `{ messages, hasEarlier, hasLater }`, oldest first.
 */
export const GET = handle(async (request: Request, { params }: Params) => {
  const id = await chatIdFrom(params);
  const { cursor, limit } = parseMessagePageQuery(new URL(request.url).searchParams);
  const page = await (await storeFor(request)).loadMessagePage(id, cursor, limit);
  if (!page) throw notFound('chat', id);
  return json(page);
});
