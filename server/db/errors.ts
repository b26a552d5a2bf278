/**
 * The one error the queries throw on purpose, with a code a route handler can map to an HTTP status
 * (`chat-not-found` -> 404, `message-conflict` -> 409, `invalid-input` -> 400). "Not found" on reads and on
 * updates of something that may have been deleted meanwhile is a `null`/`false` result instead, not an error.
 */
export type DbErrorCode = 'chat-not-found' | 'chat-exists' | 'message-conflict' | 'invalid-input';

export class DbError extends Error {
  override name = 'DbError';
  constructor(
    readonly code: DbErrorCode,
    message: string,
  ) {
    super(message);
  }
}
