/**
 * A chat's LibreOffice kept running for its later conversions: `soffice --convert-to` in a run costs about 0.55 s of
 * starting LibreOffice each time even with the prepared profile (office-profile.ts); asked of a LibreOffice already
 * running it takes about 0.1 s (`npm run bench -- --only=convert`).
 *
 *   run of chat C ── soffice wrapper ── office-client.py ──► /run/skillchat/office.sock
 *                                                            = <dir>/<C>-<random>.sock, this module's listener,
 *                                                              bound into every run of C and of no other chat
 *   this module ── checks the command line (office-args.ts) ──► <dir>/<C>-host/host.sock
 *                                                            = office-host.py in C's own sandbox: C's workspace, no
 *                                                              network, its own cgroup, uid and /tmp
 *
 * The first conversion a chat asks for is done by soffice in the run, as before, and the chat's host starts when
 * that run ends (at once when the run asks for a second); later ones go to the host. Whatever the host does not take,
 * or fails at, the run's soffice does; what it takes it converts with the filter soffice would pick. A host ends
 * after `idleMs` without a run in its chat, at `lifetimeMs`, when a conversion takes longer than the run time limit,
 * when the server closes, and with the server (bwrap --die-with-parent). At most `max` hosts run at once; a new
 * chat's takes the place of the one idle longest. A run cannot queue work for it past MAX_PENDING conversions, nor
 * hold more than MAX_CLIENTS connections, and what waits for a run that has gone is dropped.
 *
 * What the host shares is the chat's: its workspace, which every run of the chat already writes. It takes requests
 * from this module only, never from a run, checks every path again with links followed, and opens documents hidden
 * with macros never run.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { processWide } from '../process-wide';
import type { ExecutionConfig } from './config';
import { type ConvertedFile, type ConvertRequest, convertOutput, parseConvert } from './office-args';

/** What a run sees: the chat's socket, and the variable the `soffice` wrapper looks for. */
export const OFFICE_SOCKET = '/run/skillchat/office.sock';
/** Where the host listens, in its own sandbox. */
export const OFFICE_HOST_FOLDER = '/run/skillchat/office';

export interface HostStart {
  /** Host folder the host listens in, bound read-write at OFFICE_HOST_FOLDER. */
  folder: string;
  uid: number;
  signal: AbortSignal;
  /** The host's stdout as it arrives ("ready" once it listens). */
  onOutput: (text: string) => void;
}

/** Starts the chat's host in a sandbox (sandbox/run.ts knows the backend and the workspace); settles when it ends. */
export type HostStarter = (start: HostStart) => Promise<unknown>;

export interface OfficeHostOptions {
  /** Hosts at once; 0: none (every conversion starts soffice). */
  max: number;
  idleMs: number;
  lifetimeMs: number;
  /** The longest one conversion may take before its host is ended (the run's time limit). */
  requestTimeoutMs: number;
  /** First of the `max` uids hosts are lent (the server as root). */
  firstUid: number;
  /** Where the sockets live (default: a folder of its own under the system's temp folder). */
  dir?: string;
}

export interface OfficeHosts {
  /**
   * The host path of the chat's socket, listening from now on, for a run of the chat to bind at OFFICE_SOCKET; null
   * when hosts are off. `start` is how the chat's host is started when a conversion first asks for one.
   */
  socketFor(chatId: string, start: HostStarter): Promise<string | null>;
  /** A run of the chat ended: the chat's host starts now if a conversion in it asked for one. */
  runEnded(chatId: string): void;
  /** Ends the chat's host and closes its socket (the chat deleted). */
  stop(chatId: string): Promise<void>;
  /** Ends every host (the app closing). */
  close(): Promise<void>;
  /** `pending`: conversions under way or waiting for a host, across chats. */
  stats(): { chats: number; hosts: number; ready: number; pending: number; conversions: number; fallbacks: number };
  /** Whether the chat's LibreOffice is running and takes conversions now. */
  isReady(chatId: string): boolean;
}

interface Host {
  folder: string;
  abort: AbortController;
  ready: boolean;
  ended: Promise<void>;
  /** Conversions go to a host one at a time. */
  queue: Promise<unknown>;
  pending: number;
}

interface Chat {
  id: string;
  socket: string;
  server: net.Server;
  start: HostStarter;
  host: Host | null;
  /** A conversion asked for a host: it starts when that run ends (`runEnded`). */
  wanted: boolean;
  starting: boolean;
  /** Ended (idle, stopped, closed): a host being started for it is not started after all. */
  stopped: boolean;
  lastUsed: number;
  idle: NodeJS.Timeout | null;
}

/**
 * What the client is told: soffice's lines and the files made (the client makes each its own), or to run soffice
 * itself, after removing `undo` (files this request made before it failed, so soffice's run starts as it would have).
 */
type Reply = { stdout: string; targets: string[] } | { fallback: string; undo?: string[] };

const MAX_LINE = 64 * 1024;
/** Connections a chat's socket holds at once (its runs' conversions wait their turn for the one host anyway). */
const MAX_CLIENTS = 8;
/** Conversions waiting for one host; past these, soffice in the run does it (the run's own CPU and limits). */
const MAX_PENDING = 4;
/** How long a client has to send its one line. */
const CLIENT_READ_MS = 10_000;
const READY_WAIT_MS = 60_000;

function readLine(socket: net.Socket, limit: number, timeoutMs: number): Promise<string> {
  // A character split between two chunks is decoded whole.
  socket.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let data = '';
    const timer = setTimeout(() => finish(new Error('timed out')), timeoutMs);
    const finish = (error: Error | null, line?: string) => {
      clearTimeout(timer);
      socket.off('data', onData).off('end', onEnd).off('error', onError);
      if (error) reject(error);
      else resolve(line ?? '');
    };
    const onData = (chunk: string) => {
      data += chunk;
      const end = data.indexOf('\n');
      if (end >= 0) finish(null, data.slice(0, end));
      else if (data.length > limit) finish(new Error('line too long'));
    };
    const onEnd = () => finish(new Error('closed'));
    const onError = (error: Error) => finish(error);
    socket.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

function isConverted(value: unknown): value is ConvertedFile[] {
  return (
    Array.isArray(value) &&
    value.every(
      (c) =>
        c &&
        typeof c === 'object' &&
        ['source', 'target', 'filter', 'app'].every((k) => typeof (c as Record<string, unknown>)[k] === 'string'),
    )
  );
}

export function createOfficeHosts(options: OfficeHostOptions): OfficeHosts {
  const chats = new Map<string, Chat>();
  const creating = new Map<string, Promise<string | null>>();
  const freeUids = Array.from({ length: options.max }, (_, i) => options.firstUid + i);
  const counts = { conversions: 0, fallbacks: 0 };
  let dir: string | null = options.dir ?? null;
  let closed = false;

  // A process that exits without close() (a test worker, process.exit) leaves no folder of sockets behind.
  const removeDir = () => {
    if (dir && !options.dir) fs.rmSync(/*turbopackIgnore: true*/ dir, { recursive: true, force: true });
  };
  const socketDir = () => {
    if (!dir) {
      dir = fs.mkdtempSync(
        /*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ os.tmpdir(), 'skillchat-office-'),
      );
      if (!options.dir) process.once('exit', removeDir);
    }
    fs.mkdirSync(/*turbopackIgnore: true*/ dir, { recursive: true, mode: 0o700 });
    return dir;
  };

  const touch = (chat: Chat) => {
    chat.lastUsed = Date.now();
    if (chat.idle) clearTimeout(chat.idle);
    chat.idle = setTimeout(() => void stopChat(chat), options.idleMs);
    chat.idle.unref();
  };

  const endHost = async (host: Host | null) => {
    if (!host) return;
    host.abort.abort();
    await host.ended;
  };

  const stopChat = async (chat: Chat) => {
    chat.stopped = true;
    if (chats.get(chat.id) === chat) chats.delete(chat.id);
    if (chat.idle) clearTimeout(chat.idle);
    chat.server.close();
    await fs.promises.rm(/*turbopackIgnore: true*/ chat.socket, { force: true });
    await endHost(chat.host);
  };

  /** A uid for a new host: a free one, or the one of the host idle longest (ended first). */
  const lendUid = async (): Promise<number | null> => {
    const uid = freeUids.shift();
    if (uid !== undefined) return uid;
    const idle = [...chats.values()].filter((c) => c.host?.ready).sort((a, b) => a.lastUsed - b.lastUsed)[0];
    if (!idle) return null;
    await endHost(idle.host);
    return freeUids.shift() ?? null;
  };

  const startHost = async (chat: Chat) => {
    if (chat.host || chat.starting || chat.stopped) return;
    chat.starting = true;
    try {
      await startHostNow(chat);
    } catch (error) {
      console.error(`[skillchat] LibreOffice kept for a chat: ${(error as Error).message}`);
    } finally {
      chat.starting = false;
    }
  };

  const startHostNow = async (chat: Chat) => {
    const uid = await lendUid();
    if (uid === null) return;
    const folder = `${chat.socket.slice(0, -'.sock'.length)}-host`;
    try {
      await fs.promises.rm(/*turbopackIgnore: true*/ folder, { recursive: true, force: true });
      await fs.promises.mkdir(/*turbopackIgnore: true*/ folder, { mode: 0o700 });
      if (process.getuid?.() === 0) await fs.promises.chown(/*turbopackIgnore: true*/ folder, uid, uid);
    } catch (error) {
      freeUids.push(uid);
      throw error;
    }
    // The chat may have ended while the folder was made (idle, stopped, the app closing): nothing to start then.
    if (closed || chat.stopped) {
      freeUids.push(uid);
      await fs.promises.rm(/*turbopackIgnore: true*/ folder, { recursive: true, force: true });
      return;
    }
    const abort = new AbortController();
    const lifetime = setTimeout(() => abort.abort(), options.lifetimeMs);
    lifetime.unref();
    const ready = setTimeout(() => abort.abort(), READY_WAIT_MS);
    ready.unref();
    const host: Host = {
      folder,
      abort,
      ready: false,
      ended: Promise.resolve(),
      queue: Promise.resolve(),
      pending: 0,
    };
    chat.host = host;
    chat.wanted = false;
    host.ended = chat
      .start({
        folder,
        uid,
        signal: abort.signal,
        onOutput: (text) => {
          if (!host.ready && /^ready$/m.test(text)) {
            host.ready = true;
            clearTimeout(ready);
          }
        },
      })
      .catch((error: unknown) => {
        console.error(`[skillchat] LibreOffice kept for a chat: ${(error as Error).message}`);
      })
      .then(async () => {
        clearTimeout(lifetime);
        clearTimeout(ready);
        host.ready = false;
        if (chat.host === host) chat.host = null;
        freeUids.push(uid);
        await fs.promises.rm(/*turbopackIgnore: true*/ folder, { recursive: true, force: true }).catch(() => {});
      });
  };

  const ask = (host: Host, request: ConvertRequest, client: net.Socket): Promise<Reply> => {
    if (host.pending >= MAX_PENDING) return Promise.resolve({ fallback: 'the kept LibreOffice is busy' });
    host.pending++;
    const asked = host.queue.then(async (): Promise<Reply> => {
      if (!host.ready) return { fallback: 'the kept LibreOffice ended' };
      // A request whose run is gone (its client closed) is not converted after it.
      if (client.destroyed || client.readableEnded) return { fallback: 'the run is gone' };
      const socket = net.connect(path.join(/*turbopackIgnore: true*/ host.folder, 'host.sock'));
      try {
        await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
        socket.write(`${JSON.stringify(request)}\n`);
        const answer = JSON.parse(await readLine(socket, 1 << 20, options.requestTimeoutMs)) as {
          ok?: boolean;
          converted?: unknown;
          error?: string;
        };
        const converted = isConverted(answer.converted) ? answer.converted : [];
        if (answer.ok !== true || converted.length !== request.files.length) {
          const undo = converted.filter((c) => !c.existed).map((c) => c.target);
          return { fallback: answer.error ?? 'the kept LibreOffice could not', ...(undo.length ? { undo } : {}) };
        }
        return { stdout: convertOutput(converted), targets: converted.map((c) => c.target) };
      } catch (error) {
        // No answer in time (or none at all): a host that hangs on a document is of no use to the next one.
        socket.destroy();
        await endHost(host);
        return { fallback: `the kept LibreOffice did not answer (${(error as Error).message})` };
      } finally {
        socket.destroy();
      }
    });
    host.queue = asked.catch(() => {});
    return asked.finally(() => {
      host.pending--;
    });
  };

  const answer = async (chat: Chat, line: string, client: net.Socket): Promise<Reply> => {
    let asked: { cwd?: unknown; args?: unknown };
    try {
      asked = JSON.parse(line) as typeof asked;
    } catch {
      return { fallback: 'not JSON' };
    }
    const parsed = parseConvert(asked?.args, asked?.cwd);
    if (!parsed.ok) return { fallback: parsed.reason };
    touch(chat);
    const host = chat.host;
    if (!host) {
      // This conversion is soffice's in the run, and the host starts when the run ends, not beside its soffice. A
      // second one while the run goes on (a script converting a folder) starts it at once.
      if (!chat.wanted) {
        chat.wanted = true;
        return { fallback: 'the kept LibreOffice starts after this run' };
      }
      if (chat.starting) return { fallback: 'the kept LibreOffice is starting' };
      void startHost(chat);
      return { fallback: 'starting the kept LibreOffice' };
    }
    if (!host.ready) return { fallback: 'the kept LibreOffice is starting' };
    return ask(host, parsed.request, client);
  };

  const listen = (chat: Chat, client: net.Socket) => {
    client.on('error', () => {});
    readLine(client, MAX_LINE, CLIENT_READ_MS)
      .then((line) => answer(chat, line, client))
      .catch((error: Error): Reply => ({ fallback: error.message }))
      .then((reply) => {
        if ('stdout' in reply) counts.conversions++;
        else counts.fallbacks++;
        client.end(`${JSON.stringify(reply)}\n`);
      });
  };

  /** A listening socket for the chat, at a name of its own (never one another call made), or null. */
  const listenFor = async (chatId: string, start: HostStarter): Promise<string | null> => {
    const name = `${createHash('sha256').update(chatId).digest('hex').slice(0, 12)}-${randomBytes(6).toString('hex')}`;
    const socket = path.join(/*turbopackIgnore: true*/ socketDir(), `${name}.sock`);
    const chat: Chat = {
      id: chatId,
      socket,
      server: net.createServer(),
      start,
      host: null,
      wanted: false,
      starting: false,
      stopped: false,
      lastUsed: Date.now(),
      idle: null,
    };
    // A run holding connections open must not hold the server's descriptors: past these, new ones are closed.
    chat.server.maxConnections = MAX_CLIENTS;
    chat.server.on('connection', (client) => listen(chat, client));
    const listening = await new Promise<boolean>((resolve) => {
      chat.server.once('error', () => resolve(false));
      chat.server.listen(socket, () => resolve(true));
    });
    if (!listening) return null;
    // The run's uid connects through its bind of this file; nobody else can reach the folder (0700).
    await fs.promises.chmod(/*turbopackIgnore: true*/ socket, 0o666);
    if (closed) {
      await stopChat(chat);
      return null;
    }
    chat.server.unref();
    chats.set(chatId, chat);
    touch(chat);
    return socket;
  };

  return {
    async socketFor(chatId, start) {
      if (options.max === 0 || closed) return null;
      const known = chats.get(chatId);
      if (known) {
        known.start = start;
        touch(known);
        return known.socket;
      }
      // Runs of one chat starting together share the one socket being made.
      const making = creating.get(chatId);
      if (making) return making;
      const made = listenFor(chatId, start).finally(() => creating.delete(chatId));
      creating.set(chatId, made);
      return made;
    },
    async stop(chatId) {
      const chat = chats.get(chatId);
      if (chat) await stopChat(chat);
    },
    async close() {
      closed = true;
      await Promise.all([...chats.values()].map(stopChat));
      if (dir && !options.dir) await fs.promises.rm(/*turbopackIgnore: true*/ dir, { recursive: true, force: true });
      process.off('exit', removeDir);
      dir = options.dir ?? null;
    },
    runEnded(chatId) {
      const chat = chats.get(chatId);
      if (chat?.wanted && !closed) void startHost(chat);
    },
    isReady: (chatId) => chats.get(chatId)?.host?.ready === true,
    stats() {
      const hosts = [...chats.values()].filter((c) => c.host);
      return {
        chats: chats.size,
        hosts: hosts.length,
        ready: hosts.filter((c) => c.host?.ready).length,
        pending: hosts.reduce((sum, c) => sum + (c.host?.pending ?? 0), 0),
        ...counts,
      };
    },
  };
}

/** How long a host lives at most: LibreOffice's caches and any harm a document did end with it. */
const LIFETIME_MS = 20 * 60_000;

const state = processWide('office-hosts', () => ({ current: null as { key: string; hosts: OfficeHosts } | null }));

/**
 * The process's hosts, for these settings and this folder of workspaces (a chat's host works in its workspace there);
 * a change gets a fresh set, the old hosts ended.
 */
export function officeHosts(config: Pick<ExecutionConfig, 'sandbox' | 'workspace'>): OfficeHosts {
  const { officeHosts: max, officeIdleSeconds, uid, maxConcurrentRuns, timeoutMs } = config.sandbox;
  const key = JSON.stringify([max, officeIdleSeconds, uid, maxConcurrentRuns, timeoutMs, config.workspace.dir]);
  if (state.current?.key !== key) {
    void state.current?.hosts.close();
    const hosts = createOfficeHosts({
      max,
      idleMs: officeIdleSeconds * 1000,
      lifetimeMs: LIFETIME_MS,
      requestTimeoutMs: timeoutMs,
      // After the run slots' uids (select.ts runSlots: uid + 1 ... uid + maxConcurrentRuns).
      firstUid: uid + 1 + maxConcurrentRuns,
    });
    state.current = { key, hosts };
  }
  return state.current.hosts;
}

/** Ends every chat's host (the app closing); a later run starts afresh. */
export async function closeOfficeHosts(): Promise<void> {
  const current = state.current;
  state.current = null;
  await current?.hosts.close();
}
