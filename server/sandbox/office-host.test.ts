/**
 * The broker between a chat's runs and its kept LibreOffice, with a stand-in host (a Unix socket in this process
 * answering as office-host.py does) in place of LibreOffice: when a host is started, what reaches it, and when it is
 * ended. office-conversions.test.ts does the same with real bubblewrap and LibreOffice.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createOfficeHosts, type HostStart, type HostStarter, type OfficeHosts } from './office-host';

/** convert: every file; partial: the first file, then a failure; refuse: none; hang, held: no answer (held: until told). */
type Behaviour = 'convert' | 'partial' | 'refuse' | 'hang' | 'held';

interface StandIn {
  start: HostStarter;
  starts: HostStart[];
  requests: unknown[];
  ended: number;
  /** With `held`: answers every request waiting so far. */
  release(): void;
}

/** A host that listens where office-host.py would, says "ready", and answers as `behaviour` says until stopped. */
function standIn(behaviour: Behaviour = 'convert'): StandIn {
  const waiting: Array<() => void> = [];
  const made: StandIn = {
    starts: [],
    requests: [],
    ended: 0,
    start: async () => {},
    release: () => {
      for (const answer of waiting.splice(0)) answer();
    },
  };
  made.start = (start) =>
    new Promise<void>((resolve) => {
      made.starts.push(start);
      const server = net.createServer((conn) => {
        let data = '';
        conn.on('data', (chunk) => {
          data += chunk.toString();
          if (!data.endsWith('\n')) return;
          const request = JSON.parse(data) as { files: string[]; to: string; outdir: string };
          made.requests.push(request);
          const converted = request.files.map((source) => ({
            source,
            target: `${request.outdir}/${path.posix.basename(source).replace(/\.[^.]*$/, '')}.${request.to}`,
            filter: 'writer_pdf_Export',
            app: 'Writer',
            existed: false,
          }));
          const replies = {
            convert: { ok: true, converted },
            held: { ok: true, converted },
            partial: { ok: false, error: 'could not load', converted: converted.slice(0, 1) },
            refuse: { ok: false, error: 'could not load' },
          };
          if (behaviour === 'hang') return;
          const answer = () => conn.end(`${JSON.stringify(replies[behaviour])}\n`);
          if (behaviour === 'held') waiting.push(answer);
          else answer();
        });
      });
      server.listen(path.join(start.folder, 'host.sock'), () => start.onOutput('ready\n'));
      start.signal.addEventListener('abort', () => {
        made.ended++;
        server.close(() => resolve());
      });
    });
  return made;
}

/** What office-client.py does: one JSON line out, one back. */
function ask(socket: string, args: string[], cwd = '/workspace'): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const conn = net.connect(socket, () => conn.write(`${JSON.stringify({ cwd, args })}\n`));
    let data = '';
    conn.on('data', (chunk) => {
      data += chunk.toString();
    });
    conn.on('end', () => resolve(JSON.parse(data) as Record<string, unknown>));
    conn.on('error', reject);
  });
}

const until = async (check: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
};

const CONVERT = ['--headless', '--convert-to', 'pdf', 'in.docx'];

/** A chat's first conversion and the end of its run: the chat's host starts, and is ready. */
async function firstRun(office: OfficeHosts, chatId: string, socket: string): Promise<void> {
  await ask(socket, CONVERT);
  office.runEnded(chatId);
  await until(() => office.isReady(chatId));
}

let made: OfficeHosts[] = [];
let dir = '';

function make(options: Partial<Parameters<typeof createOfficeHosts>[0]> = {}): OfficeHosts {
  dir ||= fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-office-hosts-'));
  const hosts = createOfficeHosts({
    max: 2,
    idleMs: 60_000,
    lifetimeMs: 60_000,
    requestTimeoutMs: 5_000,
    firstUid: 200_100,
    dir,
    ...options,
  });
  made.push(hosts);
  return hosts;
}

afterEach(async () => {
  await Promise.all(made.map((hosts) => hosts.close()));
  made = [];
  fs.rmSync(dir, { recursive: true, force: true });
  dir = '';
});

describe("a chat's kept LibreOffice", () => {
  it("is started when the run of the chat's first conversion ends, and takes the later ones", async () => {
    const office = make();
    const host = standIn();
    const socket = (await office.socketFor('chat-a', host.start)) as string;
    expect(fs.statSync(socket).isSocket()).toBe(true);
    expect(fs.statSync(socket).mode & 0o777).toBe(0o666);
    expect(host.starts).toHaveLength(0);

    // Started when the run that asked ends, not beside its own soffice.
    expect(await ask(socket, CONVERT)).toEqual({ fallback: 'the kept LibreOffice starts after this run' });
    office.runEnded('chat-b');
    await new Promise((r) => setTimeout(r, 50));
    expect(host.starts).toHaveLength(0);
    office.runEnded('chat-a');
    office.runEnded('chat-a');
    await until(() => office.isReady('chat-a'));
    expect(host.starts.map((s) => s.uid)).toEqual([200_100]);

    expect(await ask(socket, CONVERT, '/workspace/sub')).toEqual({
      stdout:
        'convert /workspace/sub/in.docx as a Writer document -> /workspace/sub/in.pdf using filter : writer_pdf_Export\n',
      targets: ['/workspace/sub/in.pdf'],
    });
    expect(host.requests).toEqual([
      { files: ['/workspace/sub/in.docx'], to: 'pdf', filter: null, infilter: null, outdir: '/workspace/sub' },
    ]);
    expect(office.stats()).toMatchObject({ chats: 1, hosts: 1, ready: 1, conversions: 1, fallbacks: 1 });
  });

  it('gives runs of a chat starting together one socket', async () => {
    const office = make();
    const host = standIn();
    const sockets = await Promise.all(Array.from({ length: 5 }, () => office.socketFor('chat-a', host.start)));
    expect(new Set(sockets).size).toBe(1);
    expect(fs.statSync(sockets[0] as string).isSocket()).toBe(true);
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.sock'))).toHaveLength(1);
    expect(await ask(sockets[0] as string, CONVERT)).toMatchObject({ fallback: expect.any(String) });
  });

  it('starts in a run that asks twice, and starts it once', async () => {
    const office = make();
    const host = standIn();
    const socket = (await office.socketFor('chat-a', host.start)) as string;
    expect(await ask(socket, CONVERT)).toEqual({ fallback: 'the kept LibreOffice starts after this run' });
    expect(await ask(socket, CONVERT)).toEqual({ fallback: 'starting the kept LibreOffice' });
    office.runEnded('chat-a');
    await until(() => office.isReady('chat-a'));
    expect(host.starts).toHaveLength(1);
  });

  it('never hears of a command line it does not take, nor of a path outside /workspace', async () => {
    const office = make();
    const host = standIn();
    const socket = (await office.socketFor('chat-a', host.start)) as string;
    await firstRun(office, 'chat-a', socket);
    expect(await ask(socket, ['--convert-to', 'pdf', '/tmp/x.docx'])).toEqual({
      fallback: 'a file or folder outside /workspace',
    });
    expect(await ask(socket, ['-env:UserInstallation=file:///tmp/p', '--convert-to', 'pdf', 'in.docx'])).toMatchObject({
      fallback: expect.stringMatching(/soffice's own/),
    });
    const garbage = await new Promise<string>((resolve) => {
      const conn = net.connect(socket, () => conn.write('{not json\n'));
      let data = '';
      conn.on('data', (c) => {
        data += c.toString();
      });
      conn.on('end', () => resolve(data));
    });
    expect(JSON.parse(garbage)).toEqual({ fallback: 'not JSON' });
    expect(host.requests).toEqual([]);
  });

  it('leaves a conversion it fails at to soffice, with what it made before the failure to remove', async () => {
    const office = make();
    const refusing = standIn('refuse');
    const a = (await office.socketFor('chat-a', refusing.start)) as string;
    await firstRun(office, 'chat-a', a);
    expect(await ask(a, CONVERT)).toEqual({ fallback: 'could not load' });
    expect(refusing.ended).toBe(0);

    const partial = standIn('partial');
    const b = (await office.socketFor('chat-b', partial.start)) as string;
    await firstRun(office, 'chat-b', b);
    expect(await ask(b, ['--convert-to', 'pdf', 'one.docx', 'two.docx'])).toEqual({
      fallback: 'could not load',
      undo: ['/workspace/one.pdf'],
    });
  });

  it("ends a host that does not answer in the run's time; the next run's conversion starts another", async () => {
    const office = make({ requestTimeoutMs: 300 });
    const hanging = standIn('hang');
    const socket = (await office.socketFor('chat-a', hanging.start)) as string;
    await firstRun(office, 'chat-a', socket);
    expect(await ask(socket, CONVERT)).toEqual({ fallback: 'the kept LibreOffice did not answer (timed out)' });
    expect(hanging.ended).toBe(1);
    expect(office.stats()).toMatchObject({ hosts: 0, ready: 0 });
    expect(await ask(socket, CONVERT)).toEqual({ fallback: 'the kept LibreOffice starts after this run' });
    office.runEnded('chat-a');
    await until(() => hanging.starts.length === 2);
  });

  it('keeps at most 4 conversions waiting for a host, and drops one whose run is gone', async () => {
    const office = make();
    const host = standIn('held');
    const socket = (await office.socketFor('chat-a', host.start)) as string;
    await firstRun(office, 'chat-a', socket);
    const convert = (name: string) => ask(socket, ['--convert-to', 'pdf', `${name}.docx`]);
    // f0 under way, f1 waiting; then one whose client goes away while it waits; then f3.
    const asked = [convert('f0'), convert('f1')];
    await until(() => host.requests.length === 1);
    await until(() => office.stats().pending === 2);
    const gone = net.connect(socket, () => gone.write(`${JSON.stringify({ cwd: '/workspace', args: CONVERT })}\n`));
    await until(() => office.stats().pending === 3);
    asked.push(convert('f3'));
    await until(() => office.stats().pending === 4);
    // Four waiting or under way: the fifth is soffice's in its run.
    expect(await convert('f4')).toEqual({ fallback: 'the kept LibreOffice is busy' });
    gone.destroy();
    for (let i = 0; i < 20 && host.requests.length < 3; i++) {
      host.release();
      await new Promise((r) => setTimeout(r, 50));
    }
    host.release();
    expect((await Promise.all(asked)).every((r) => 'stdout' in r)).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    expect(host.requests.map((r) => (r as { files: string[] }).files[0])).toEqual([
      '/workspace/f0.docx',
      '/workspace/f1.docx',
      '/workspace/f3.docx',
    ]);
  });

  it('holds at most 8 connections of a chat at once: a run cannot use up the server descriptors', async () => {
    const office = make();
    const socket = (await office.socketFor('chat-a', standIn().start)) as string;
    const open = (): Promise<net.Socket> =>
      new Promise((resolve, reject) => {
        const conn = net.connect(socket, () => resolve(conn));
        conn.on('error', reject);
      });
    const held = await Promise.all(Array.from({ length: 8 }, open));
    const extra = await open();
    const closed = await new Promise<boolean>((resolve) => {
      extra.on('close', () => resolve(true));
      setTimeout(() => resolve(false), 2000);
    });
    expect(closed).toBe(true);
    for (const conn of held) conn.destroy();
    await new Promise((r) => setTimeout(r, 50));
    // Once they are gone the socket answers again.
    expect(await ask(socket, ['--convert-to', 'pdf', '/tmp/x.docx'])).toEqual({
      fallback: 'a file or folder outside /workspace',
    });
  });

  it('gives each chat its own socket and host, at most `max` at once: a new one ends the one idle longest', async () => {
    const office = make({ max: 1 });
    const first = standIn();
    const second = standIn();
    const a = (await office.socketFor('chat-a', first.start)) as string;
    const b = (await office.socketFor('chat-b', second.start)) as string;
    expect(a).not.toBe(b);
    expect(await office.socketFor('chat-a', first.start)).toBe(a);
    await firstRun(office, 'chat-a', a);
    await firstRun(office, 'chat-b', b);
    expect(first.ended).toBe(1);
    // The uid the first host had is the second's: one host at a time.
    expect(second.starts[0]?.uid).toBe(first.starts[0]?.uid);
    await ask(b, CONVERT);
    expect(first.requests).toEqual([]);
    expect(second.requests).toHaveLength(1);
  });

  it('ends with its chat idle, and every host when closed; a chat ended while its host starts gets none', async () => {
    const office = make({ idleMs: 1000 });
    const host = standIn();
    const socket = (await office.socketFor('chat-a', host.start)) as string;
    // Not waiting to see it ready: on a busy machine it may already have idled out by then.
    await ask(socket, CONVERT);
    office.runEnded('chat-a');
    await until(() => host.starts.length === 1);
    await until(() => host.ended === 1, 10_000);
    expect(fs.existsSync(socket)).toBe(false);
    expect(office.stats()).toMatchObject({ chats: 0, hosts: 0 });

    const again = standIn();
    const socket2 = (await office.socketFor('chat-a', again.start)) as string;
    await firstRun(office, 'chat-a', socket2);
    const late = standIn();
    const socket3 = (await office.socketFor('chat-c', late.start)) as string;
    await ask(socket3, CONVERT);
    office.runEnded('chat-c');
    // Stopped before its host's folder is made: no host is started for it, or left running.
    await office.stop('chat-c');
    await office.close();
    await new Promise((r) => setTimeout(r, 100));
    expect(again.ended).toBe(1);
    expect(late.starts).toHaveLength(0);
    expect(await office.socketFor('chat-a', again.start)).toBeNull();

    const off = make({ max: 0 });
    expect(await off.socketFor('chat-a', again.start)).toBeNull();
  });

  it('leaves no folder of sockets behind a process that exits without closing it', () => {
    const script = path.join(dir || fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-office-hosts-')), 'exit.ts');
    dir = path.dirname(script);
    fs.writeFileSync(
      script,
      [
        `import { createOfficeHosts } from ${JSON.stringify(path.join(import.meta.dirname, 'office-host.ts'))};`,
        'const hosts = createOfficeHosts({ max: 1, idleMs: 60000, lifetimeMs: 60000, requestTimeoutMs: 1000, firstUid: 1 });',
        "hosts.socketFor('chat-a', async () => {}).then((socket) => { console.log(socket); process.exit(0); });",
      ].join('\n'),
    );
    const socket = execFileSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8' }).trim();
    expect(socket).toMatch(/skillchat-office-.*\.sock$/);
    expect(fs.existsSync(path.dirname(socket))).toBe(false);
  });
});
