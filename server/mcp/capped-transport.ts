/**
 * A cap on one message from an MCP server, applied while it is read: past `limit` bytes the rest of the message is
 * dropped as it arrives, never held, and the request it answers gets a JSON-RPC error that says so. The tool's
 * caller then reports a clear error to the model, and this process holds at most about `limit` bytes per server
 * however much a server sends (a result read whole and cut afterwards would hold all of it first).
 *
 * - Streamable HTTP: `cappedFetch` is the transport's `fetch`. A JSON answer is read up to the limit; an SSE answer
 *   is passed on one event at a time, each up to the limit. The request's id comes from the request body.
 * - stdio: `CappedLineBuffer` replaces the transport's line buffer (the SDK's own caps at 10 MB and then closes the
 *   connection). A line past the limit is skipped to its end; its id is read from its first or last bytes, where a
 *   JSON-RPC response keeps it. A line whose id cannot be found closes the connection (it is reconnected).
 */
import { deserializeMessage, type FetchLike, type JSONRPCMessage } from '@modelcontextprotocol/client';

/** The largest message read from a server: a tool list with long schemas fits; a result past it is refused. */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

type Id = string | number;

function overLimit(id: Id, limit: number): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32603,
      message: `the server's answer was larger than ${Math.round(limit / 1024)} KiB; it was not read (mcp message cap)`,
    },
  } as JSONRPCMessage;
}

/** The id of a JSON-RPC message from its first or last bytes (`{"jsonrpc":"2.0","id":1,...` or `...,"id":1}`). */
export function idFromEnds(head: string, tail: string): Id | null {
  const value = String.raw`(-?\d+|"(?:[^"\\]|\\.){0,200}")`;
  const found =
    new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${value}`).exec(head) ??
    new RegExp(String.raw`"id"\s*:\s*${value}\s*\}\s*$`).exec(tail);
  if (!found) return null;
  try {
    return JSON.parse(found[1]!) as Id;
  } catch {
    return null;
  }
}

/** The ids of the requests in a request body (one request or a batch); notifications and responses have none. */
function requestIds(body: RequestInit['body']): Id[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed = JSON.parse(body) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((m) =>
      m && typeof m === 'object' && 'method' in m && 'id' in m && (typeof m.id === 'string' || typeof m.id === 'number')
        ? [m.id]
        : [],
    );
  } catch {
    return [];
  }
}

const encoder = new TextEncoder();

function concat(chunks: Uint8Array[], size: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Index just past the first blank line (`\n\n` or `\r\n\r\n`) at or after `from`, or -1. */
function eventEnd(bytes: Uint8Array, from: number): number {
  for (let i = Math.max(from, 1); i < bytes.length; i++) {
    if (bytes[i] !== 0x0a) continue;
    if (bytes[i - 1] === 0x0a) return i + 1;
    if (bytes[i - 1] === 0x0d && i >= 3 && bytes[i - 2] === 0x0a && bytes[i - 3] === 0x0d) return i + 1;
  }
  return -1;
}

/** An SSE body passed on one whole event at a time; an event past `limit` is dropped and answered with an error. */
function cappedEvents(body: ReadableStream<Uint8Array>, ids: Id[], limit: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let held: Uint8Array[] = [];
  let size = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const next = await reader.read();
        if (next.done) {
          if (size > 0) controller.enqueue(concat(held, size));
          controller.close();
          return;
        }
        let pending = concat([...held, next.value], size + next.value.length);
        let from = Math.max(0, size - 3);
        let passed = false;
        for (let end = eventEnd(pending, from); end !== -1; end = eventEnd(pending, 0)) {
          controller.enqueue(pending.subarray(0, end));
          passed = true;
          pending = pending.subarray(end);
          from = 0;
        }
        if (pending.length > limit) {
          // Stop reading: the server's stream is cancelled, its request answered here.
          await reader.cancel().catch(() => {});
          for (const id of ids)
            controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(overLimit(id, limit))}\n\n`));
          controller.close();
          return;
        }
        held = [pending];
        size = pending.length;
        if (passed) return;
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** A JSON body read up to `limit`; past it, the read stops and the request is answered with an error. */
async function cappedJson(response: Response, ids: Id[], limit: number): Promise<Response> {
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const next = await reader.read();
    if (next.done) break;
    size += next.value.length;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      const errors = ids.map((id) => overLimit(id, limit));
      if (errors.length === 0) throw new Error(`an MCP answer was larger than ${limit} bytes; it was not read`);
      return new Response(JSON.stringify(errors.length === 1 ? errors[0] : errors), {
        status: response.status,
        headers: { 'content-type': 'application/json' },
      });
    }
    chunks.push(next.value);
  }
  return new Response(concat(chunks, size) as Uint8Array<ArrayBuffer>, {
    status: response.status,
    headers: response.headers,
  });
}

/** A `fetch` for `StreamableHTTPClientTransport` that reads at most `limit` bytes of any one message. */
export function cappedFetch(limit: number, inner: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await inner(url, init);
    if (!response.body) return response;
    const ids = requestIds(init?.body);
    const type = response.headers.get('content-type') ?? '';
    if (type.includes('text/event-stream')) {
      return new Response(cappedEvents(response.body, ids, limit), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    }
    return cappedJson(response, ids, limit);
  };
}

/** The kept ends of a line being skipped: enough to find its id. */
const ENDS = 256;

/**
 * The stdio transport's line buffer (the SDK's `ReadBuffer` interface: `append`, `readMessage`, `clear`) with a
 * cap per line. Complete lines are parsed as they arrive, so only the line under way is held.
 */
export class CappedLineBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  private skipping: { head: string; tail: Buffer } | null = null;
  private ready: JSONRPCMessage[] = [];

  constructor(private readonly limit: number) {}

  append(chunk: Buffer): void {
    let rest = chunk;
    while (rest.length > 0) {
      const newline = rest.indexOf(0x0a);
      const piece = newline === -1 ? rest : rest.subarray(0, newline);
      if (this.skipping) {
        // Only the last bytes are copied: a skipped line costs nothing per chunk but its end.
        this.skipping.tail = Buffer.concat([this.skipping.tail, piece.subarray(-ENDS)]).subarray(-ENDS);
      } else if (this.size + piece.length > this.limit) {
        const start = Buffer.concat([...this.chunks, piece.subarray(0, ENDS)]);
        this.skipping = { head: start.subarray(0, ENDS).toString('utf8'), tail: piece.subarray(-ENDS) };
        this.chunks = [];
        this.size = 0;
      } else {
        this.chunks.push(piece);
        this.size += piece.length;
      }
      if (newline === -1) return;
      this.endLine();
      rest = rest.subarray(newline + 1);
    }
  }

  private endLine(): void {
    const skipped = this.skipping;
    const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    this.skipping = null;
    if (skipped) {
      const id = idFromEnds(skipped.head, skipped.tail.toString('utf8').replace(/\r$/, ''));
      // No id: nothing to answer, and the stream cannot be trusted to be in step; the transport closes.
      if (id === null) throw new Error(`an MCP message was larger than ${this.limit} bytes and had no id`);
      this.ready.push(overLimit(id, this.limit));
      return;
    }
    if (line.trim() === '') return;
    try {
      this.ready.push(deserializeMessage(line));
    } catch (error) {
      // Like the SDK: a line that is not JSON (a server's stray log line) is skipped.
      if (!(error instanceof SyntaxError)) throw error;
    }
  }

  readMessage(): JSONRPCMessage | null {
    return this.ready.shift() ?? null;
  }

  clear(): void {
    this.chunks = [];
    this.size = 0;
    this.skipping = null;
    this.ready = [];
  }
}
