/**
 * Who is asking: the ONE place routes and pages learn the person a request acts for. For now every request acts
 * for the built-in loopback person; when accounts are wired in, this becomes `(await requireUser(headers)).id`
 * (401 without a session) and nothing else changes.
 */
import { LOCAL_USER_ID } from './local-user';

export async function currentUserId(_request: Request | Headers): Promise<string> {
  return LOCAL_USER_ID;
}
