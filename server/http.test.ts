/** Every handler fails the same way: AppErrors and the queries' DbErrors become `{ error, code }` with a 4xx. */
import { describe, expect, it, vi } from 'vitest';
import { DbError } from './db/errors';
import { AppError } from './errors';
import { errorResponse, handle } from './http';

describe('errorResponse', () => {
  it.each([
    ['chat-not-found', 404, 'not_found:chat'],
    ['chat-exists', 409, 'conflict:chat'],
    ['message-conflict', 409, 'conflict:message'],
    ['invalid-input', 400, 'bad_request:input'],
  ] as const)('maps DbError %s to %i %s', async (dbCode, status, code) => {
    const response = errorResponse(new DbError(dbCode, 'No chat with id c1'));
    expect(response.status).toBe(status);
    expect(await response.json()).toEqual({ error: 'No chat with id c1', code });
  });

  it('maps errors of another bundle copy of the classes (the app is built in instrumentation, apart from routes)', async () => {
    // What `instanceof` cannot see: the same classes loaded twice.
    class OtherDbError extends Error {
      override name = 'DbError';
      constructor(
        readonly code: string,
        message: string,
      ) {
        super(message);
      }
    }
    const db = errorResponse(new OtherDbError('message-conflict', 'Message m1 belongs to another chat'));
    expect([db.status, await db.json()]).toEqual([
      409,
      { error: 'Message m1 belongs to another chat', code: 'conflict:message' },
    ]);
    const copy = Object.assign(new Error('shutting down'), {
      name: 'AppError',
      code: 'unavailable:shutting-down',
      status: 503,
      toJSON: () => ({ error: 'shutting down', code: 'unavailable:shutting-down' }),
    });
    expect(errorResponse(copy).status).toBe(503);
  });

  it('keeps an AppError as it is, and hides anything else behind a 500 without details', async () => {
    const known = errorResponse(new AppError('conflict:chat', 'busy'));
    expect([known.status, await known.json()]).toEqual([409, { error: 'busy', code: 'conflict:chat' }]);
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const failed = await handle(() => {
      throw new Error('SQLITE_CORRUPT at /srv/data/skillchat.db');
    })();
    expect(failed.status).toBe(500);
    expect(JSON.stringify(await failed.json())).not.toContain('/srv');
    log.mockRestore();
  });
});
