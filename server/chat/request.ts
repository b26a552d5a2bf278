/**
 * Validation of chat request bodies. Only text parts are accepted from the browser: tool parts are produced by the
 * server, never trusted from a client.
 */
import { z } from 'zod';
import { deriveTitle } from '../db/title';
import { AppError } from '../errors';
import type { ChatMessage, ChatRequestBody } from './wire-types';

/** Characters in one user message. Large enough for pasted documents, small enough to keep a turn cheap. */
export const MAX_MESSAGE_CHARS = 32_000;
/** Bytes of a request body, checked before JSON parsing. */
export const MAX_BODY_BYTES = 256 * 1024;

export const chatIdSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_-]+$/, 'must contain only letters, digits, "_" and "-"');

/** The `:id` of a `/api/chats/:id/...` route, validated (400 `bad_request:chat` otherwise). */
export async function chatIdFrom(params: Promise<{ id: string }>): Promise<string> {
  const { id } = await params;
  const parsed = chatIdSchema.safeParse(id);
  if (!parsed.success) throw new AppError('bad_request:chat', `Invalid chat id: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

const textPartSchema = z.object({ type: z.literal('text'), text: z.string() }).loose();

const userMessageSchema = z
  .object({
    id: z.string().min(1).max(100),
    role: z.literal('user'),
    parts: z.array(textPartSchema).min(1).max(20),
    metadata: z.unknown().optional(),
  })
  .loose();

/** The files a person attached (already in the workspace), kept as message metadata for the chips. */
const attachmentsSchema = z
  .array(z.object({ name: z.string().min(1).max(255), size: z.number().int().min(0), mediaType: z.string().max(200) }))
  .max(100);

const approvalSchema = z
  .object({ approvalId: z.string().min(1).max(200), approved: z.boolean(), always: z.boolean().optional() })
  .strict();

export const chatRequestSchema = z
  .object({
    chatId: chatIdSchema,
    message: userMessageSchema.optional(),
    trigger: z.enum(['submit-message', 'regenerate-message', 'approval-response']).default('submit-message'),
    approvals: z.array(approvalSchema).min(1).max(20).optional(),
    messageId: z.string().min(1).max(100).optional(),
  })
  .loose();

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || 'body'}: ${i.message}`)
    .join('; ');
}

export function messageText(message: Pick<ChatMessage, 'parts'>): string {
  return message.parts
    .filter((p): p is { type: 'text'; text: string } => p.type === 'text')
    .map((p) => p.text)
    .join('\n');
}

/** The title a chat gets from its first message: what it asks, or the files attached to it (`db/title.ts`). */
export function titleOf(message: Pick<ChatMessage, 'parts' | 'metadata'>): string {
  return deriveTitle(messageText(message), message.metadata?.attachments?.map((a) => a.name) ?? []);
}

/** Parses a raw JSON body; throws `AppError` with a specific reason. */
export function parseChatRequest(raw: unknown): ChatRequestBody {
  const parsed = chatRequestSchema.safeParse(raw);
  if (!parsed.success) throw new AppError('bad_request:chat', `Invalid chat request: ${describeIssues(parsed.error)}`);
  const { chatId, trigger, message, approvals, messageId } = parsed.data;
  if (trigger === 'approval-response') {
    if (!approvals) throw new AppError('bad_request:chat', 'Invalid chat request: approvals are required');
    return { chatId, trigger, approvals };
  }
  if (trigger === 'submit-message') {
    if (!message) throw new AppError('bad_request:chat', 'Invalid chat request: message is required to submit');
    const text = messageText(message as ChatMessage);
    if (!text.trim()) throw new AppError('bad_request:chat', 'Invalid chat request: the message is empty');
    if (text.length > MAX_MESSAGE_CHARS) {
      throw new AppError(
        'payload_too_large:chat',
        `The message is ${text.length} characters; the limit is ${MAX_MESSAGE_CHARS}`,
      );
    }
    const clean: ChatMessage = {
      id: message.id,
      role: 'user',
      parts: message.parts.map((p) => ({ type: 'text' as const, text: p.text })),
    };
    const attachments = attachmentsSchema.safeParse(
      (message.metadata as { attachments?: unknown } | undefined)?.attachments,
    );
    if (attachments.success && attachments.data.length > 0) clean.metadata = { attachments: attachments.data };
    if (messageId !== undefined && messageId !== message.id) {
      throw new AppError('bad_request:chat', 'Invalid chat request: an edit keeps the id of the message it edits');
    }
    return { chatId, trigger, message: clean, ...(messageId ? { messageId } : {}) };
  }
  return { chatId, trigger };
}

/** Reads a JSON body with a byte cap; throws `AppError` for oversized or malformed bodies. */
export async function readJsonBody(request: Request, maxBytes = MAX_BODY_BYTES): Promise<unknown> {
  const type = request.headers.get('content-type') ?? '';
  if (!type.includes('application/json')) {
    throw new AppError('unsupported_media_type:request', 'Send the body as application/json');
  }
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw new AppError('payload_too_large:request', `The body is over ${maxBytes} bytes`);
  const text = await request.text();
  if (Buffer.byteLength(text) > maxBytes) {
    throw new AppError('payload_too_large:request', `The body is over ${maxBytes} bytes`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('bad_request:request', 'The body is not valid JSON');
  }
}
