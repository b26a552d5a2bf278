/**
 * One error type for expected request failures, with codes shaped `kind:surface` (e.g. `not_found:chat`), mapped
 * to HTTP status in one place so every handler fails the same way. Messages are shown to people: keep them
 * specific and free of absolute paths.
 */
const STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
} as const;

export type ErrorKind = keyof typeof STATUS;
export type ErrorCode = `${ErrorKind}:${string}`;

export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly status: number;

  constructor(code: ErrorCode, message: string) {
    super(message);
    this.code = code;
    this.status = STATUS[code.split(':')[0] as ErrorKind];
  }

  toJSON() {
    return { error: this.message, code: this.code };
  }
}

/** By shape too: an AppError thrown by code of another Next bundle (the app built in instrumentation) is another class. */
export function isAppError(error: unknown): error is AppError {
  if (error instanceof AppError) return true;
  if (!(error instanceof Error) || error.name !== 'AppError') return false;
  const { code, status } = error as { code?: unknown; status?: unknown };
  return typeof code === 'string' && typeof status === 'number' && typeof (error as AppError).toJSON === 'function';
}
