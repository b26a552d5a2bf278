/**
 * The app's lifecycle: `createApp` opens, `start()` starts the background work, `close()` ends all of it (the MCP
 * servers' processes, the lease sweep, the skill watcher, the database); and the process's app (`getApp()`) is opened
 * once, kept across a module reload (Next dev), and closed by `closeApp()`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { STDIO_SERVER } from '../test/mcp/servers';
import { processesWith } from '../test/processes';
import { until } from '../test/until';
import { createApp } from './app';
import { runChatTurn, turnDeps } from './chat/turn';
import { loadConfig } from './config';
import { closeDb, createChat, getChat, getMessageRecords, openDb, sqliteDatabase } from './db';
import { LOCAL_USER_ID } from './db/local-user';
import { runSlots } from './sandbox/select';
import { buildExposurePolicy } from './security/exposure';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-app-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function writeSkill(root: string, name: string) {
  fs.mkdirSync(path.join(root, name), { recursive: true });
  fs.writeFileSync(path.join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: Does ${name} things.\n---\n`);
}

/** This process's open files at `file` (a connection left open keeps one). */
function openHandles(file: string): number {
  return fs.readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false;
    }
  }).length;
}

const count = (kinds: string[], kind: string) => kinds.filter((k) => k === kind).length;

const loopback = () =>
  buildExposurePolicy({ env: { __NEXT_PRIVATE_ORIGIN: 'http://127.0.0.1:3000' }, allowedHosts: [] });

describe('createApp', () => {
  it('close() ends everything start() started', async () => {
    const dir = path.join(tmp, 'lifecycle');
    const skills = path.join(dir, 'skills');
    writeSkill(skills, 'alpha');
    const mark = `app-close-test-${process.pid}-${Date.now()}`;
    fs.writeFileSync(
      path.join(dir, 'config.json'),
      JSON.stringify({ mcpServers: { local: { command: process.execPath, args: [STDIO_SERVER, mark] } } }),
    );
    const config = loadConfig({
      appDir: dir,
      home: dir,
      env: {
        SKILLCHAT_CONFIG: path.join(dir, 'config.json'),
        SKILLCHAT_DB: path.join(dir, 'chat.db'),
        SKILLCHAT_SKILL_ROOTS: skills,
      },
    });
    const intervals = vi.spyOn(globalThis, 'setInterval');
    const cleared = vi.spyOn(globalThis, 'clearInterval');

    const app = await createApp(config, { env: { PATH: process.env.PATH }, exposure: loopback });
    // Opened, not started: nothing runs in the background yet.
    expect(processesWith(mark)).toBe(0);
    await app.start();
    await until(() => (app.mcp.list()[0]?.status === 'connected' ? true : undefined));
    expect(processesWith(mark)).toBe(1);
    await app.registry.startWatching();
    expect((await app.registry.current()).skills.map((s) => s.name)).toEqual(['alpha']);
    // A turn's lease keeps the heartbeat running: it must stop with the app too.
    await createChat({ id: 'c1' }, app.db);
    expect(await app.leases.acquire('c1', () => {})).toBe(true);
    expect(intervals).toHaveBeenCalled();

    await app.close();
    expect(processesWith(mark)).toBe(0);
    expect(app.registry.isWatching()).toBe(false);
    expect(openHandles(config.databasePath)).toBe(0);
    const stopped = new Set(cleared.mock.calls.map(([timer]) => timer));
    expect(intervals.mock.results.filter(({ value }) => !stopped.has(value))).toEqual([]);
    // Closing twice is closing once.
    await app.close();
    intervals.mockRestore();
    cleared.mockRestore();
  });

  it('close() cuts a running turn short and stores it before the database closes, refuses runs waiting for a slot; nothing it started keeps running', async () => {
    const dir = path.join(tmp, 'turn-on-close');
    const config = loadConfig({
      appDir: dir,
      home: dir,
      env: { SKILLCHAT_DB: path.join(dir, 'chat.db'), SKILLCHAT_SKILL_ROOTS: path.join(dir, 'skills') },
    });
    // What keeps a process alive (timers, sockets, child processes, file requests) before the app and after it.
    const alive = () => process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap');
    const before = alive();
    // The offline model paced so the answer is still streaming when the app closes.
    const app = await createApp(config, {
      env: { PATH: process.env.PATH, SKILLCHAT_OFFLINE_CHUNK_DELAY_MS: '200' },
      exposure: loopback,
    });
    await app.start();
    await createChat({ id: 'running' }, app.db);
    const deps = await turnDeps(app, LOCAL_USER_ID, 'running');
    const message = {
      id: 'running-u',
      role: 'user' as const,
      parts: [{ type: 'text' as const, text: 'Tell me a long story' }],
    };
    // The response is never read: a closed tab.
    await runChatTurn({ chatId: 'running', trigger: 'submit-message', message }, deps);
    expect(app.turns.get('running')).toBeDefined();
    expect(app.turns.streams.resume('running')).not.toBeNull();
    // Every sandbox slot taken, and a run (a document read, say) waiting for one.
    const slots = runSlots(config.execution);
    const held = await Promise.all(Array.from({ length: slots.stats().size }, () => slots.acquire('someone')));
    const waiting = slots.acquire('someone');

    await app.close();
    expect(app.turns.get('running')).toBeUndefined();
    expect(app.turns.streams.resume('running')).toBeNull();
    await expect(waiting).rejects.toThrow('the server is shutting down');
    for (const slot of held) slot.release();
    expect(() => app.turns.claim('late')).toThrow(/shutting down/);
    const reopened = sqliteDatabase(openDb(config.databasePath));
    try {
      expect((await getMessageRecords('running', reopened)).map((r) => r.status)).toEqual(['complete', 'interrupted']);
    } finally {
      closeDb(reopened);
    }
    // Of each kind no more than before (one the test before started may still be ending).
    const more = () => [...new Set(alive())].filter((kind) => count(alive(), kind) > count(before, kind));
    await until(() => (more().length === 0 ? true : undefined)).catch(() => {});
    expect(more()).toEqual([]);
  });

  it('a database that opens but fails to build an app is closed, not leaked', async () => {
    const dir = path.join(tmp, 'broken');
    const config = loadConfig({ appDir: dir, home: dir, env: { SKILLCHAT_DB: path.join(dir, 'chat.db') } });
    const db = openDb(config.databasePath);
    // The mode overrides are read while the app is built: a table they cannot be read from fails the build.
    db.$client.exec('DROP TABLE skill_modes');
    closeDb(db);
    await expect(createApp(config, { exposure: loopback })).rejects.toThrow(/skill_modes/);
    expect(openHandles(config.databasePath)).toBe(0);
  });
});

describe('getApp', () => {
  it('opens nothing at import, opens the app once, keeps it across a module reload; closeApp closes it', async () => {
    const dir = path.join(tmp, 'process');
    const dbFile = path.join(dir, 'data', 'chat.db');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'config.json'), '{}');
    vi.stubEnv('SKILLCHAT_CONFIG', path.join(dir, 'config.json'));
    vi.stubEnv('SKILLCHAT_DB', dbFile);
    vi.stubEnv('SKILLCHAT_SKILL_ROOTS', path.join(dir, 'skills'));
    vi.stubEnv('SKILLCHAT_HOME', dir);
    try {
      vi.resetModules();
      const module = await import('./app');
      expect(fs.existsSync(dbFile)).toBe(false);

      const first = await module.getApp();
      expect(fs.existsSync(dbFile)).toBe(true);
      expect(await module.getApp()).toBe(first);
      await createChat({ id: 'kept' }, first.db);

      // Next dev evaluates the modules again after an edit: the app is the process's, not the module's.
      vi.resetModules();
      const reloaded = await import('./app');
      expect(await reloaded.getApp()).toBe(first);

      await reloaded.closeApp();
      expect(openHandles(dbFile)).toBe(0);
      const again = await reloaded.getApp();
      expect(again === first).toBe(false);
      // A fresh app takes turns again: the closed one's table refuses them.
      expect(again.turns === first.turns).toBe(false);
      expect(first.turns.shuttingDown).toBe(true);
      expect(again.turns.shuttingDown).toBe(false);
      expect((await getChat('kept', again.db))?.id).toBe('kept');
      await reloaded.closeApp();
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
