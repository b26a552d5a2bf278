import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  filesToCheck,
  generatedFolders,
  missingPaths,
  normalizePath,
  type PathMention,
  pathsInCode,
  pathsInMarkdown,
} from './repo-paths';

const root = path.resolve(import.meta.dirname, '..');
const generated = generatedFolders(fs.readFileSync(path.join(root, '.gitignore'), 'utf8'));
const where = (ms: PathMention[]) =>
  ms.map((m) => `${m.file}:${m.line} ${m.path}${m.section === undefined ? '' : ` "${m.section}"`}`);

describe('the paths docs and comments name', () => {
  it('exist', () => {
    const { docs, code } = filesToCheck(root, generated);
    const read = (f: string) => fs.readFileSync(path.join(root, f), 'utf8');
    const mentions = [
      ...docs.flatMap((f) => pathsInMarkdown(f, read(f))),
      ...code.flatMap((f) => pathsInCode(f, read(f))),
    ];
    expect(mentions.length).toBeGreaterThan(100);
    const missing = missingPaths(root, mentions, generated);
    // Each line is file:line and the path it names that is not in the repository.
    expect(where(missing).join('\n')).toBe('');
  }, 120_000);
});

describe('finding paths in comments', () => {
  const source = [
    "// The turn's dependencies are built in server/chat/turn/deps.ts.",
    '/* See server/no-such-room/gone.ts: planted, wrong. */',
    "const url = 'server/not-a-comment.ts'; // a string is code, not a comment",
    'const re = /server\\/also-code/; // nor a regular expression',
    'function f() {',
    '  return 1;',
    '  // last line of a block: server/db/client.ts:12, and (server/app.ts).',
    '}',
    'const jsx = <a>// server/jsx-text.ts</a>;',
    '// Not paths: /usr/bin/env, https://example.com/app/x, vercel/ai-chatbot/app/page.tsx, `server/tool` globs.',
    '// A placeholder or a glob is cut to its folder: server/tools/<name>.ts, app/api/**, server/db/{a,b}.ts.',
  ].join('\n');

  it('takes the paths in comments, with their lines, and nothing in code', () => {
    expect(pathsInCode('x.tsx', source).map((m) => [m.line, m.path])).toEqual([
      [1, 'server/chat/turn/deps.ts'],
      [2, 'server/no-such-room/gone.ts'],
      [7, 'server/db/client.ts'],
      [7, 'server/app.ts'],
      [11, 'server/tools'],
      [11, 'app/api'],
      [11, 'server/db'],
    ]);
  });

  it('reports a planted wrong path with the file and line that names it', () => {
    const missing = missingPaths(root, pathsInCode('server/planted.ts', source), generated);
    expect(where(missing)).toEqual(['server/planted.ts:2 server/no-such-room/gone.ts']);
  });

  it('trims prose around a path', () => {
    expect(normalizePath('server/app.ts.')).toBe('server/app.ts');
    expect(normalizePath('server/app.ts),')).toBe('server/app.ts');
    expect(normalizePath('app/api/chats/[id]/route.ts')).toBe('app/api/chats/[id]/route.ts');
    expect(normalizePath('app/(chat)/page.tsx')).toBe('app/(chat)/page.tsx');
    expect(normalizePath('server/chat/turn/run.ts:42')).toBe('server/chat/turn/run.ts');
    expect(normalizePath('server/scripts/')).toBe('server/scripts');
  });

  it('reads stylesheet comments', () => {
    const css = '.a { color: red; }\n/* the cards of app/no-such.css */\n';
    expect(pathsInCode('app/x.css', css)).toEqual([{ path: 'app/no-such.css', file: 'app/x.css', line: 2 }]);
  });
});

describe('finding paths in Markdown', () => {
  const doc = [
    'Read [the deploy guide](DEPLOY.md) and [a gone one](GONE.md#top), or [a site](https://example.com/docs/x).',
    'The lease is in `server/chat/running/leases.ts`; the old `server/scripts/` room is gone.',
    '```',
    'server/in-a-fence.ts is output, not a reference',
    '```',
    '| `sandbox/*` | `run.ts`, `bwrap.ts`, `no-such.ts` |',
    '| `db/*` | `db/client.ts`, `db/gone.ts`, `text/plain`, `mcp:<label>/<tool>` |',
  ].join('\n');

  it('resolves links against the doc, table files against the table folder and the row', () => {
    const missing = missingPaths(root, pathsInMarkdown('docs/ARCHITECTURE.md', doc), generated);
    expect(where(missing)).toEqual([
      'docs/ARCHITECTURE.md:1 docs/GONE.md',
      'docs/ARCHITECTURE.md:2 server/scripts',
      'docs/ARCHITECTURE.md:6 no-such.ts',
      'docs/ARCHITECTURE.md:7 db/gone.ts',
    ]);
  });

  it("checks a section named with its doc against the doc's headings", () => {
    const text = [
      'See docs/TEAM-SERVER.md, "Two instances", and [the sandbox](SANDBOX.md), "No such section".',
      'Also (docs/ARCHITECTURE.md, "Running code") and docs/GONE.md, "Anything".',
    ].join('\n');
    const missing = missingPaths(root, pathsInMarkdown('docs/UI.md', text), generated);
    expect(where(missing)).toEqual(['docs/UI.md:1 docs/SANDBOX.md "No such section"', 'docs/UI.md:2 docs/GONE.md']);
    const comment = '// The lease (docs/TEAM-SERVER.md, "Three instances").';
    expect(where(missingPaths(root, pathsInCode('x.ts', comment), generated))).toEqual([
      'x.ts:1 docs/TEAM-SERVER.md "Three instances"',
    ]);
  });

  it('takes table files as relative only in docs whose tables are written so', () => {
    const paths = pathsInMarkdown('docs/SANDBOX.md', doc).map((m) => m.path);
    expect(paths).not.toContain('run.ts');
    expect(paths).toContain('server/chat/running/leases.ts');
  });
});
