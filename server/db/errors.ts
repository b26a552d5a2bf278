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

const DB_ERROR_CODES: readonly string[] = ['chat-not-found', 'chat-exists', 'message-conflict', 'invalid-input'];

/**
 * By shape, not only `instanceof`: Next bundles the instrumentation (which builds the app and its store) apart from
 * each route, so a query called through the app's store throws the other bundle's `DbError` class.
 */
export function isDbError(error: unknown): error is DbError {
  if (error instanceof DbError) return true;
  if (!(error instanceof Error) || error.name !== 'DbError') return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && DB_ERROR_CODES.includes(code);
}
