/**
 * Helpers for route handlers: every handler fails the same way (JSON `{ error, code }` with the AppError status),
 * and unexpected errors are logged on the server and answered with a generic 500 that names no paths.
 */
import { AppError, isAppError } from './errors';

export function json(data: unknown, init: ResponseInit = {}): Response {
  return Response.json(data, { ...init, headers: { 'cache-control': 'no-store', ...init.headers } });
}

export function errorResponse(error: unknown): Response {
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
