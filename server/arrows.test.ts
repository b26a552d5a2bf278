/**
 * Arrows point downhill in server/: it imports no framework (`next/*`: what needs Next lives in app/, e.g.
 * app/_lib/), no module reaches, through its value imports, back to itself, and the rooms (folders, and a few files
 * that stand alone) import only rooms below them in the map of docs/ARCHITECTURE.md, which this test reads, so the
 * map cannot drift from the code. A failing test here fails `npm test`, so a cycle, a step back up or a
 * `next/headers` cannot come back quietly.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * Rooms that still import each other while another branch untangles them: imports between the two are not
 * checked. Delete an entry as soon as its rooms import one way.
 */
const PENDING_CYCLES: ReadonlyArray<readonly [string, string]> = [];

function files(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : files(rel);
    return /\.(ts|tsx)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [rel] : [];
  });
}

/** Specifiers a file imports or re-exports; `type` imports only when `withTypes` (they vanish at run time). */
function imports(source: string, withTypes = false): string[] {
  const found: string[] = [];
  const re = /^(?:import|export)\s+(type\s)?[^'";]*?from\s+['"]([^'"]+)['"]|^import\s+['"]([^'"]+)['"]/gm;
  for (const m of source.matchAll(re)) if (withTypes || !m[1]) found.push((m[2] ?? m[3])!);
  return found;
}

function resolve(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = path.join(path.dirname(from), specifier);
  const found = [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((f) =>
    fs.existsSync(path.join(ROOT, f)),
  );
  return found ?? null;
}

/** Every cycle of value imports, each as the path from a module back to itself. */
function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

/**
 * The map's rooms, top first: each level is a list item of docs/ARCHITECTURE.md between the `rooms` markers that
 * starts with its rooms in backticks (several on one line are peers: neither imports the other). A room is a folder
 * under server/ (`chat/turn/`, holding what no deeper room claims) or a file that stands alone (`app.ts`).
 */
function readRoomMap(doc: string): string[][] {
  const section = /<!-- rooms -->\n([\s\S]*?)<!-- \/rooms -->/.exec(doc);
  if (!section) return [];
  return section[1]!.split('\n').flatMap((line) => {
    const head = /^- ((?:`[^`]+`(?:, )?)+)/.exec(line);
    return head ? [[...head[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)] : [];
  });
}

/** The room a file under server/ lives in: the room named after the file, else the deepest folder room holding it. */
function roomOf(file: string, rooms: readonly string[]): string | null {
  const rel = path.relative('server', file).split(path.sep).join('/');
  if (rooms.includes(rel)) return rel;
  let best: string | null = null;
  for (const room of rooms) {
    if (room.endsWith('/') && rel.startsWith(room) && room.length > (best?.length ?? 0)) best = room;
  }
  return best;
}

interface RoomImport {
  from: string;
  to: string;
  fromRoom: string;
  toRoom: string;
}

/** Value imports that cross rooms, with the rooms at each end. */
function roomImports(graph: ReadonlyMap<string, readonly string[]>, rooms: readonly string[]): RoomImport[] {
  const crossing: RoomImport[] = [];
  for (const [from, targets] of graph) {
    const fromRoom = roomOf(from, rooms);
    for (const to of targets) {
      const toRoom = roomOf(to, rooms);
      if (fromRoom && toRoom && fromRoom !== toRoom) crossing.push({ from, to, fromRoom, toRoom });
    }
  }
  return crossing;
}

const pending = (a: string, b: string) => PENDING_CYCLES.some(([x, y]) => (x === a && y === b) || (x === b && y === a));

/** Imports that do not go down the map: up, or sideways to a peer. Each as `file -> file (which rooms, and why)`. */
function stepsUp(crossing: readonly RoomImport[], levels: readonly (readonly string[])[]): string[] {
  const level = new Map(levels.flatMap((rooms, i) => rooms.map((room) => [room, i] as const)));
  return crossing.flatMap(({ from, to, fromRoom, toRoom }) => {
    if (pending(fromRoom, toRoom)) return [];
    const a = level.get(fromRoom)!;
    const b = level.get(toRoom)!;
    if (a < b) return [];
    const why = a === b ? 'a peer' : 'above it';
    return [`${from} -> ${to} (${fromRoom} imports ${toRoom}, ${why} in the map)`];
  });
}

/** Cycles between rooms, each step with one import that makes it. */
function roomCycles(crossing: readonly RoomImport[]): string[] {
  const graph = new Map<string, string[]>();
  const example = new Map<string, string>();
  for (const { from, to, fromRoom, toRoom } of crossing) {
    if (pending(fromRoom, toRoom)) continue;
    const key = `${fromRoom}\0${toRoom}`;
    if (example.has(key)) continue;
    example.set(key, `${from} -> ${to}`);
    graph.set(fromRoom, [...(graph.get(fromRoom) ?? []), toRoom]);
  }
  return findCycles(graph).map((cycle) =>
    cycle
      .slice(1)
      .map((room, i) => `${cycle[i]} -> ${room} (${example.get(`${cycle[i]}\0${room}`)})`)
      .join('; '),
  );
}

const serverFiles = files('server');
const source = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const valueGraph = new Map(
  serverFiles.map((file) => [file, imports(source(file)).flatMap((s) => resolve(file, s) ?? [])] as const),
);
const levels = readRoomMap(fs.readFileSync(path.join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8'));
const rooms = levels.flat();

describe('server/ arrows', () => {
  it('finds the server files', () => {
    expect(serverFiles.length).toBeGreaterThan(100);
  });

  it('no file under server/ imports Next (next/*)', () => {
    const offenders = serverFiles.flatMap((file) =>
      imports(source(file), true)
        .filter((s) => s === 'next' || s.startsWith('next/'))
        .map((s) => `${file} -> ${s}`),
    );
    expect(offenders).toEqual([]);
  });

  it("the app does not load the turn: the app is in every page's bundle, where the tools' text files cannot be read", () => {
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const next of valueGraph.get(file) ?? []) visit(next);
    };
    visit(path.join('server', 'app.ts'));
    expect(reached.size).toBeGreaterThan(20);
    // define.ts reads each tool's description file when its module loads; the turn loads every tool.
    const heavy = [path.join('server', 'tools', 'define.ts'), path.join('server', 'chat', 'turn', 'index.ts')];
    expect(heavy.filter((file) => reached.has(file))).toEqual([]);
  });

  it('no import cycles under server/', () => {
    expect(findCycles(valueGraph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('the map of rooms in docs/ARCHITECTURE.md names each room once, each one there, and every file is in one', () => {
    expect(rooms.length).toBeGreaterThan(20);
    expect(rooms.filter((room, i) => rooms.indexOf(room) !== i)).toEqual([]);
    expect(rooms.filter((room) => !fs.existsSync(path.join(ROOT, 'server', room)))).toEqual([]);
    expect(serverFiles.filter((file) => roomOf(file, rooms) === null)).toEqual([]);
    const folders = serverFiles.map((file) => `${path.relative('server', path.dirname(file))}/`);
    const topFolders = new Set(folders.filter((f) => f !== '/').map((f) => `${f.split('/')[0]}/`));
    expect([...topFolders].filter((folder) => !rooms.includes(folder))).toEqual([]);
  });

  it('no cycle between rooms under server/', () => {
    expect(roomCycles(roomImports(valueGraph, rooms))).toEqual([]);
  });

  it('every import between rooms goes down the map', () => {
    expect(stepsUp(roomImports(valueGraph, rooms), levels)).toEqual([]);
  });

  it('the cycle finder finds a cycle, and the import reader skips type imports', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(findCycles(graph)).toEqual([['a', 'b', 'c', 'a']]);
    expect(imports("import { x } from './a';\nimport type { Y } from './b';\nexport * from './c';")).toEqual([
      './a',
      './c',
    ]);
  });

  it('the room checks name the import that steps up or closes a cycle', () => {
    const map = readRoomMap(
      '<!-- rooms -->\n- `app.ts`: the root\n- `chat/turn/`, `admin/`: peers\n- `chat/`: below\n<!-- /rooms -->',
    );
    expect(map).toEqual([['app.ts'], ['chat/turn/', 'admin/'], ['chat/']]);
    const names = map.flat();
    expect(roomOf('server/chat/turn/run.ts', names)).toBe('chat/turn/');
    expect(roomOf('server/chat/versions.ts', names)).toBe('chat/');
    expect(roomOf('server/app.ts', names)).toBe('app.ts');
    expect(roomOf('server/errors.ts', names)).toBeNull();
    const graph = new Map([
      ['server/chat/versions.ts', ['server/chat/turn/run.ts']],
      ['server/chat/turn/run.ts', ['server/chat/store.ts', 'server/admin/page.ts']],
      ['server/app.ts', ['server/chat/store.ts']],
    ]);
    const crossing = roomImports(graph, names);
    expect(stepsUp(crossing, map)).toEqual([
      'server/chat/versions.ts -> server/chat/turn/run.ts (chat/ imports chat/turn/, above it in the map)',
      'server/chat/turn/run.ts -> server/admin/page.ts (chat/turn/ imports admin/, a peer in the map)',
    ]);
    expect(roomCycles(crossing)).toEqual([
      'chat/ -> chat/turn/ (server/chat/versions.ts -> server/chat/turn/run.ts); chat/turn/ -> chat/ (server/chat/turn/run.ts -> server/chat/store.ts)',
    ]);
  });
});
