// Finds the repository paths that docs and code comments name, so a test can say which of them do not exist.
// Precision over recall: a token is taken only when it can only be a path (it starts with one of the repository's
// top-level folders, or, in a Markdown table, it is a source file's name in backticks), because a check that cries
// wolf gets switched off.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** The folders a path named in prose starts with; anything else (`mcp/tool`, `text/plain`) is not taken for a path. */
export const ROOTS = [
  'server',
  'app',
  'components',
  'bin',
  'docs',
  'drizzle',
  'drizzle-pg',
  'e2e',
  'test',
  'bench',
  'deploy',
  '.skills',
] as const;

export type PathMention = {
  /** The path as it is checked, relative to the repository (a glob or placeholder cut back to the folder before it). */
  path: string;
  /** Where it was named: the file relative to the repository, and the line (1-based). */
  file: string;
  line: number;
  /** For a path relative to a table row: the other folders it may be relative to; it exists if it exists under one. */
  bases?: string[];
  /** A section of a Markdown file named with it (`docs/TEAM-SERVER.md, "Two instances"`): a heading must hold it. */
  section?: string;
};

/** `docs/<doc>.md, "Section"` or `[<doc>.md](<doc>.md), "Section"` on one line: the file as written, and the section. */
export function sectionsNamed(text: string): { target: string; section: string; link: boolean }[] {
  const out: { target: string; section: string; link: boolean }[] = [];
  for (const m of text.matchAll(/(\]\()?([\w./-]+\.md)\)?,? "([^"]+)"/g)) {
    out.push({ target: m[2] ?? '', section: m[3] ?? '', link: m[1] !== undefined });
  }
  return out;
}

const ROOTED = new RegExp(
  // Not inside a longer path or word (`/usr/bin/x`, `ai-chatbot/app/x`, `@scope/server`), nor a URL.
  `(?<![\\w./@~:-])(?:${ROOTS.map((r) => r.replace(/[.-]/g, '\\$&')).join('|')})/[\\w.\\-\\[\\]()/*<>{},@$]*`,
  'g',
);

/** Words shaped like a path that are not one: an MCP rule's pattern is `server/tool` (`github/delete_*`). */
const NOT_PATHS = new Set(['server/tool']);

const SOURCE_EXT = /\.(ts|tsx|mts|mjs|js|cjs|css|md|sql|py|txt|sh|json|yml|yaml)$/;

/**
 * Trims what prose puts around a path (a full stop, a closing bracket that is not part of it, `:12` line numbers)
 * and cuts a glob or a placeholder back to the folder before it. Returns null when nothing path-like remains.
 */
export function normalizePath(raw: string): string | null {
  let p = raw;
  for (;;) {
    const before = p;
    p = p.replace(/[.,;]+$/, '');
    if (p.endsWith(')') && count(p, '(') < count(p, ')')) p = p.slice(0, -1);
    if (p.endsWith(']') && count(p, '[') < count(p, ']')) p = p.slice(0, -1);
    if (p.endsWith('}') && count(p, '{') < count(p, '}')) p = p.slice(0, -1);
    if (p === before) break;
  }
  p = p.replace(/:\d+(-\d+)?$/, '');
  const segments = p.split('/');
  const cut = segments.findIndex((s) => /[*<>{}$]/.test(s) || s === '...' || s === '…');
  const kept = cut === -1 ? segments : segments.slice(0, cut);
  const out = kept.join('/').replace(/\/+$/, '');
  if (!out || out.includes('//')) return null;
  return out;
}

function count(s: string, ch: string): number {
  return s.split(ch).length - 1;
}

/** Paths starting with a top-level folder in one line of text. */
export function rootedPaths(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(ROOTED)) {
    const p = normalizePath(m[0]);
    // `server/` alone names the folder; a bare root is always there.
    if (p?.includes('/') && !NOT_PATHS.has(p)) out.push(p);
  }
  return out;
}

/** The comments of a TypeScript or JavaScript source, each with the line it starts on. */
export function tsComments(fileName: string, text: string): { text: string; line: number }[] {
  const kind = fileName.endsWith('x')
    ? ts.ScriptKind.TSX
    : /\.[mc]?js$/.test(fileName)
      ? ts.ScriptKind.JS
      : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const seen = new Set<number>();
  const out: { text: string; line: number }[] = [];
  const take = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      out.push({ text: text.slice(r.pos, r.end), line: source.getLineAndCharacterOfPosition(r.pos).line + 1 });
    }
  };
  // Every comment is trivia before some token (the end-of-file token included), so visiting the leaves finds all.
  const visit = (node: ts.Node) => {
    const children = node.getChildren(source);
    if (children.length === 0) {
      // JSX text is not trivia: `<a>// x</a>` shows `// x`.
      if (node.kind !== ts.SyntaxKind.JsxText) take(ts.getLeadingCommentRanges(text, node.getFullStart()));
      return;
    }
    for (const child of children) visit(child);
  };
  visit(source);
  return out.sort((a, b) => a.line - b.line);
}

/** The comments of a stylesheet. */
export function cssComments(text: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  for (const m of text.matchAll(/\/\*[\s\S]*?\*\//g)) {
    out.push({ text: m[0], line: text.slice(0, m.index).split('\n').length });
  }
  return out;
}

/** Paths named in the comments of one code file. */
export function pathsInCode(file: string, text: string): PathMention[] {
  // Parsing is the slow part, and most files name no path at all.
  if (rootedPaths(text).length === 0) return [];
  const comments = file.endsWith('.css') ? cssComments(text) : tsComments(file, text);
  const out: PathMention[] = [];
  for (const c of comments) {
    c.text.split('\n').forEach((lineText, i) => {
      for (const p of rootedPaths(lineText)) out.push({ path: p, file, line: c.line + i });
      for (const s of sectionsNamed(lineText)) {
        const [p] = rootedPaths(s.target);
        if (p) out.push({ path: p, file, line: c.line + i, section: s.section });
      }
    });
  }
  return out;
}

/** Docs whose tables name files relative to a folder (ARCHITECTURE's module tables say `db/client.ts`). */
export const TABLES_RELATIVE_TO: Record<string, string> = { 'docs/ARCHITECTURE.md': 'server' };

/**
 * Paths named in a Markdown document: link targets (relative to the document), any path starting with a top-level
 * folder, and, in a table row of a doc in `TABLES_RELATIVE_TO`, a source file or folder in backticks relative to
 * that folder, to the folder of another path in the same row (`bwrap.ts` in the `sandbox/*` row), or to the
 * repository. Fenced code blocks are skipped: they hold commands and output, not references.
 */
export function pathsInMarkdown(file: string, text: string): PathMention[] {
  const out: PathMention[] = [];
  const tableBase = TABLES_RELATIVE_TO[file];
  let fenced = false;
  text.split('\n').forEach((lineText, i) => {
    const line = i + 1;
    if (/^\s*(```|~~~)/.test(lineText)) {
      fenced = !fenced;
      return;
    }
    if (fenced) return;
    const prose = lineText.replace(/\]\(([^)\s]+)\)/g, (_, target: string) => {
      const p = target.replace(/#.*$/, '');
      if (p && !/^[a-z]+:/.test(p)) out.push({ path: path.posix.join(path.posix.dirname(file), p), file, line });
      return ']';
    });
    for (const s of sectionsNamed(lineText)) {
      const p = s.link ? path.posix.join(path.posix.dirname(file), s.target) : rootedPaths(s.target)[0];
      if (p) out.push({ path: p, file, line, section: s.section });
    }
    const rooted = rootedPaths(prose);
    for (const p of rooted) out.push({ path: p, file, line });
    if (!tableBase || !prose.trimStart().startsWith('|')) return;
    const relative: string[] = [];
    for (const m of prose.matchAll(/`([^`\s]+)`/g)) {
      const token = m[1] ?? '';
      if (rootedPaths(token).length > 0 || token.startsWith('/') || token.startsWith('.')) continue;
      if (/[:=@'"]/.test(token)) continue;
      if (!token.includes('/') && !SOURCE_EXT.test(token)) continue;
      if (token.includes('/') && !SOURCE_EXT.test(token) && !/\/\**$/.test(token)) continue;
      const p = normalizePath(token);
      if (p) relative.push(p);
    }
    if (relative.length === 0) return;
    const bases = new Set<string>([tableBase, '.']);
    for (const p of [...rooted, ...relative.map((r) => `${tableBase}/${r}`)]) {
      for (let dir = p; !['.', '/', ''].includes(dir); dir = path.posix.dirname(dir)) bases.add(dir);
    }
    for (const p of relative) out.push({ path: p, file, line, bases: [...bases] });
  });
  return out;
}

/** Folders the repository makes and ignores (`/bin/dist/`): a path under one is named rightly even when not built. */
export function generatedFolders(gitignore: string): string[] {
  return gitignore
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^\/[\w.-]+(\/[\w.-]+)*\/$/.test(l))
    .map((l) => l.slice(1, -1));
}

/** The mentions whose path exists nowhere they may be relative to. */
export function missingPaths(root: string, mentions: PathMention[], generated: string[]): PathMention[] {
  const exists = (p: string) =>
    fs.existsSync(path.join(root, p)) || generated.some((g) => p === g || p.startsWith(`${g}/`));
  return mentions.filter((m) => {
    if (m.section !== undefined) {
      // A missing file is reported by its own mention; here only a section its headings no longer hold.
      const file = path.join(root, m.path);
      return fs.existsSync(file) && !hasHeading(fs.readFileSync(file, 'utf8'), m.section);
    }
    return (m.bases ?? ['.']).every((base) => !exists(path.posix.join(base, m.path)));
  });
}

/** Whether a Markdown heading contains `section` (headings may say more: "Two instances, or more"). */
export function hasHeading(markdown: string, section: string): boolean {
  const wanted = section.toLowerCase();
  return markdown.split('\n').some((l) => /^#{1,6} /.test(l) && l.toLowerCase().includes(wanted));
}

/** Every doc (docs/*.md, README.md) and every code file under the repository's top-level folders. */
export function filesToCheck(root: string, generated: string[]): { docs: string[]; code: string[] } {
  const docs = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
    f.endsWith('.md'),
  );
  const code: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.name === 'node_modules' || generated.includes(rel)) continue;
      if (entry.isDirectory()) walk(rel);
      else if (/\.(ts|tsx|mts|mjs|js|cjs|css)$/.test(entry.name)) code.push(rel);
    }
  };
  for (const dir of ['server', 'app', 'components', 'bin', 'test', 'e2e', 'bench']) walk(dir);
  return { docs, code };
}
