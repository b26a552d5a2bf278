/**
 * Helpers for route handlers: every handler fails the same way (JSON `{ error, code }` with the AppError status),
 * a query's `DbError` is mapped here (never its raw message's driver details: the queries word them for people),
 * and unexpected errors are logged on the server and answered with a generic 500 that names no paths.
 */
import { type DbError, type DbErrorCode, isDbError } from './db/errors';
import { AppError, type ErrorCode, isAppError } from './errors';

export function json(data: unknown, init: ResponseInit = {}): Response {
  return Response.json(data, { ...init, headers: { 'cache-control': 'no-store', ...init.headers } });
}

const DB_ERROR_CODES: Record<DbErrorCode, ErrorCode> = {
  'chat-not-found': 'not_found:chat',
  'chat-exists': 'conflict:chat',
  'message-conflict': 'conflict:message',
  'invalid-input': 'bad_request:input',
};

/** A query's refusal as the request's error: `chat-not-found` is a 404, a conflict a 409, bad input a 400. */
export function fromDbError(error: DbError): AppError {
  return new AppError(DB_ERROR_CODES[error.code], error.message);
}

export function errorResponse(error: unknown): Response {
  if (isDbError(error)) error = fromDbError(error);
  if (isAppError(error)) return json(error.toJSON(), { status: error.status });
  console.error('[skillchat] unexpected error', error);
  return json({ error: 'Internal error; the server log has the details', code: 'internal:server' }, { status: 500 });
}

/** Wraps a handler so thrown AppErrors become 4xx responses. */
export function handle<A extends unknown[]>(fn: (...args: A) => Promise<Response> | Response) {
  return async (...args: A): Promise<Response> => {
    try {
      return await fn(...args);
    } catch (error) {
      return errorResponse(error);
    }
  };
}

export function notFound(what: string, id: string): AppError {
  return new AppError(`not_found:${what}`, `${what[0]!.toUpperCase()}${what.slice(1)} "${id}" does not exist`);
}
