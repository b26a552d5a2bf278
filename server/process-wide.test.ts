/**
 * State that must be one per process lives in the process's one record (process-wide.ts), never in a module-level
 * variable: Next gives each route bundle, the pages, `proxy.ts` and `instrumentation.ts` their own copy of every module
 * they import (a production build of this app has three copies of `db/client.ts`: the route handlers', the pages' and
 * instrumentation's), so module state exists once per copy. This test fails on module-level mutable state (`let`,
 * `var`, a `new Map()`/`Set`/`WeakMap`/... or an empty `[]`/`{}` bound at the top of a module) outside the list
 * below, where each entry says why a copy per bundle is harmless; and on a `globalThis` slot outside process-wide.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Module-level mutable state that may exist once per bundle, and why. Keys are `file: name`. */
const ALLOWED: Record<string, string> = {
  // Caches of values derived from their key: a second copy only computes them again.
  'server/access/access.ts: reasons': 'interned reason sentences; a copy interns its own',
  'server/access/globs.ts: compiledGlobs': 'compiled skill-name globs by pattern',
  'server/access/modes.ts: compiled': 'compiled globs per config object',
  'server/chat/skill-view.ts: catalogCache':
    'the catalog per skill set and chat, built in the chat route only (the prompt cache needs it stable there)',
  'server/chat/skill-view.ts: derivedCache': 'derived per skill set and access map',
  'server/egress/ca.ts: leafStates': 'leaves per host, minted from the one CA on disk by any copy',
  'server/egress/intercept.ts: upstreamContexts': 'TLS contexts per list of trusted certificates',
  'server/egress/run-egress.ts: cas': 'the CA loaded per folder; a copy that races writes none twice (ca.ts)',
  'server/egress/run-egress.ts: trusts': 'the trust bundle per folder and trust list, rewritten only when it changes',
  'server/sandbox/bwrap.ts: egressAssets':
    "the runtime's egress files, copied in when they differ, the same by any copy",
  'server/toolchain/package-indexes.ts: known': "the package indexes pip's and npm's config name, read once",
  'server/mcp/skill-cache.ts: readers': 'a stateless SkillsClient wrapper per SDK client',
  'server/offline-model/prompt-reader.ts: systemViews': 'parsed system prompts by text',
  'server/sandbox/bwrap.ts: identities': 'passwd and group files per uid, written the same by any copy',
  'server/sandbox/bwrap.ts: filters': 'the seccomp filter per runtime folder, built the same by any copy',
  'server/skill-server/mcp.ts: entries': 'MCP entries per published skill object',
  'server/skills/catalog/budget.ts: fullTokens': 'token counts per skill object',
  'server/skills/catalog/budget.ts: hashOrders': 'orders per skill list',
  'server/skills/catalog/budget.ts: memos': 'catalogs per skill list',
  'server/skills/catalog/budget.ts: tokenCache': 'token counts by text',
  'server/skills/catalog/match-analyze.ts: stemCache': 'stems by word',
  'server/skills/catalog/search.ts: byNameCache': 'a name index per skill list',
  'server/skills/discovery/confusables.ts: skeletons': 'lookalike skeletons by name',
  'server/tools/index.ts: inputs': 'tool input schemas by skill set',
  'server/tools/index.ts: outputs': 'tool output schemas by tool',
  'server/tools/run-script.ts: hasScriptsThisTurn': "per turn, keyed by the turn's own object",
  // Scratch space and pacing of the one module that uses them.
  'server/skills/discovery/walk.ts: lastYield': 'when the scan under way last yielded: each copy paces its own scans',
  'server/skills/load/skill-file.ts: scratch': 'a read buffer used synchronously, never across an await',
};

/**
 * The process's records (`processWide(key, ...)`) and why each is not a field of the app (server/app.ts): what the app
 * opens and starts is its own (the running turns, the leases, the MCP connections, ...); these are reached by code
 * that is not handed the app, or must exist before it.
 */
const KEYS: Record<string, string> = {
  app: 'the app itself: every bundle reaches it through getApp()',
  config: 'the configuration the app is built from, loaded once (appConfig); proxy.ts and the CLI check read it too',
  exposure: 'proxy.ts decides who may connect without opening the app (no database in the proxy)',
  'peer-address': 'the http server hook is installed by instrumentation before the app, read by the sign-in routes',
  shutdown: 'the signal handlers, installed once though dev reloads run instrumentation again',
  'turn-leases':
    "one lease coordinator per database connection: a store made on the app's connection (tests, account deletion from the CLI) finds the app's",
  sandbox:
    'the run slots, probes and a test backend: runs start from tools, document reads and the CLI, none handed the app',
  'sqlite-queues': 'the queue in front of each SQLite connection, keyed by connection: every opener shares it',
  'sqlite-open-reports': 'what opening each SQLite connection found, keyed by connection; read by instrumentation',
  'usage-counts': 'use counts per database, read by the catalog of any chat store on that connection',
  'workspace-usage': 'measured workspace totals: uploads, runs and /admin measure them without the app',
  'document-reads': "reads under way per file: the upload route's read and the turn's are one",
  previews: 'preview runs per person and per file, started by the files route without the app',
  'office-profiles': "LibreOffice's profile, prepared once per version by any run",
  'office-hosts':
    "each chat's kept LibreOffice, asked for by any run of the chat (like the run slots, without the app)",
  'skill-server-warnings': 'skills reported as not published, said once across the /mcp and well-known bundles',
};

const COLLECTIONS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet', 'KeptMap', 'Array', 'WeakRef']);

function files(dir: string): string[] {
  const full = path.join(ROOT, dir);
  if (!fs.existsSync(full)) return [];
  return fs.readdirSync(full, { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' || e.name === 'node_modules' ? [] : files(rel);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [rel] : [];
  });
}

/** What runs on the server, in every bundle Next makes of it. Client components keep React state, not process state. */
const serverSources = [
  ...files('server'),
  ...files('app').filter((f) => f.endsWith('.ts')),
  'proxy.ts',
  'instrumentation.ts',
];

const parse = (file: string, text = fs.readFileSync(path.join(ROOT, file), 'utf8')) =>
  ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);

/** A constant table by convention (`SKIPPED_FOLDERS`) or by type (`ReadonlyMap`): not state. */
function isConstantTable(decl: ts.VariableDeclaration): boolean {
  const name = decl.name.getText();
  if (/^[A-Z][A-Z0-9_]*$/.test(name)) return true;
  return decl.type !== undefined && /^Readonly/.test(decl.type.getText());
}

function isMutableValue(init: ts.Expression): boolean {
  if (ts.isNewExpression(init)) return COLLECTIONS.has(init.expression.getText());
  if (ts.isArrayLiteralExpression(init)) return init.elements.length === 0;
  if (ts.isObjectLiteralExpression(init)) return init.properties.length === 0;
  if (ts.isAsExpression(init) || ts.isSatisfiesExpression(init)) return isMutableValue(init.expression);
  return false;
}

/** `file: name` of each module-level binding that holds mutable state. */
function moduleState(file: string, source: ts.SourceFile = parse(file)): string[] {
  const found: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const list = statement.declarationList;
    const isConst = (list.flags & ts.NodeFlags.Const) !== 0;
    for (const decl of list.declarations) {
      const names = ts.isIdentifier(decl.name) ? [decl.name.text] : [decl.name.getText()];
      const mutable = !isConst || (decl.initializer !== undefined && isMutableValue(decl.initializer));
      if (mutable && !(isConst && isConstantTable(decl))) found.push(...names.map((n) => `${file}: ${n}`));
    }
  }
  return found;
}

/** Every `processWide('<key>', ...)` call: its key and file. */
function processWideKeys(file: string, source: ts.SourceFile = parse(file)): { key: string; file: string }[] {
  const keys: { key: string; file: string }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && node.expression.getText() === 'processWide') {
      const [first] = node.arguments;
      keys.push({
        key: first && ts.isStringLiteral(first) ? first.text : `<not a literal: ${first?.getText()}>`,
        file,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return keys;
}

describe('process-wide state', () => {
  it('finds the sources', () => {
    expect(serverSources.length).toBeGreaterThan(150);
  });

  it('module-level mutable state is only where a copy per bundle is harmless (the list says why)', () => {
    const found = serverSources.flatMap((file) => moduleState(file));
    expect(found.filter((entry) => !(entry in ALLOWED))).toEqual([]);
    // An entry for state that is gone must go too, or the list stops saying what is there.
    expect(Object.keys(ALLOWED).filter((entry) => !found.includes(entry))).toEqual([]);
  });

  it('one globalThis slot, in process-wide.ts', () => {
    const slots = [...serverSources, ...files('components'), ...files('bin'), ...files('bench')].filter((file) =>
      /globalThis\s+as\s+typeof\s+globalThis|globalThis\.__|\bglobal\.__/.test(
        fs.readFileSync(path.join(ROOT, file), 'utf8'),
      ),
    );
    expect(slots).toEqual(['server/process-wide.ts']);
  });

  it('each process-wide key is owned by one module', () => {
    const owners = new Map<string, Set<string>>();
    for (const { key, file } of serverSources.flatMap((file) => processWideKeys(file))) {
      if (file === 'server/process-wide.ts') continue;
      owners.set(key, (owners.get(key) ?? new Set()).add(file));
    }
    expect([...owners.keys()].filter((key) => key.startsWith('<'))).toEqual([]);
    expect([...owners].filter(([, files]) => files.size > 1).map(([key, files]) => `${key}: ${[...files]}`)).toEqual(
      [],
    );
    // Each record says why it is not the app's; an entry for a record that is gone must go too.
    expect([...owners.keys()].filter((key) => !(key in KEYS))).toEqual([]);
    expect(Object.keys(KEYS).filter((key) => !owners.has(key))).toEqual([]);
  });

  it('the finder sees a module-level let and a new Map(), and not a constant table or a function-local map', () => {
    const source = parse(
      'x.ts',
      [
        'let counter = 0;',
        'const cache = new Map<string, number>();',
        'const kept: string[] = [];',
        'const TABLE = new Set(["a"]);',
        'const frozen: ReadonlyMap<string, number> = new Map();',
        'const record = processWide("k", () => new Map());',
        'export function f() { const local = new Map(); let n = 0; return [local, n]; }',
      ].join('\n'),
    );
    expect(moduleState('x.ts', source)).toEqual(['x.ts: counter', 'x.ts: cache', 'x.ts: kept']);
    expect(processWideKeys('x.ts', source)).toEqual([{ key: 'k', file: 'x.ts' }]);
  });
});
