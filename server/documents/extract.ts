/**
 * The text of a document in a chat's workspace, for the model: PDF, Word/ODT, Excel, PowerPoint and plain text.
 *
 * A document is untrusted input for a parser, so every parser runs in the sandbox (`runSandboxed`: a run slot, the
 * process's backend, a short time limit and an output cap), never in the server process: PDF with pdftotext,
 * DOCX/ODT with pandoc, XLSX with openpyxl from the skills runtime, PPTX with Python's zipfile and ElementTree (the
 * runtime has no python-pptx). Plain text (Markdown, CSV, JSON, ...) needs no parser: the server reads its bytes,
 * capped, through the same no-links open that serves downloads, so it reads even where no sandbox can start.
 *
 * Each result is kept per file beside the chat's meta.json, outside the sandbox's reach:
 *
 *   <workspaces>/<chatId>/text/<sha256 of the name>.json  { name, size, mtimeMs, ino, text }
 *
 * and used while the file's size, mtime and inode are unchanged (not ctime: a run hands the workspace's files to its
 * uid, which moves it). A script that rewrites a file in place at the same size and sets its mtime back is served
 * the old text: its own chat's doing. Failures that would fail again (a damaged PDF, a timeout) are kept the same
 * way; ones that may not (no sandbox here, Stop) only in memory, so the files list does not start the same read
 * over and over.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { KeptMap } from '../kept-map';
import { processWide } from '../process-wide';
import type { ExecutionConfig } from '../sandbox/config';
import { sandboxLimits } from '../sandbox/config';
import { SANDBOX_PATHS } from '../sandbox/port';
import { runSandboxed } from '../sandbox/run';
import { guessMediaType } from '../skills/resources/resources';
import { isSafeFileName } from '../workspace/file-names';
import { readMeta } from '../workspace/folders';
import { folderFiles } from '../workspace/run-files';
import { chatFolder, openWorkspaceFile, type WorkspaceFile, workspaceDir } from '../workspace/workspace';

export type DocumentKind = 'pdf' | 'word' | 'spreadsheet' | 'slides' | 'text';

/** What reading a document gave: its text (pages, slides or sheets counted when it has them), or why not. */
export type DocumentText =
  | { state: 'read'; text: string; parts?: DocumentParts; complete: boolean }
  | { state: 'failed'; reason: string };

export interface DocumentParts {
  count: number;
  unit: 'pages' | 'slides' | 'sheets';
}

/** A file's text as the files list shows it (`GET /api/chats/:id/files`), without the text. */
export interface FileTextState {
  /** `none`: not a kind of file that is read (images, archives); `pending`: being read. */
  state: 'read' | 'failed' | 'pending' | 'none';
  reason?: string;
  chars?: number;
  parts?: DocumentParts;
  /** The file's text was longer than what is kept of it (`MAX_TEXT_CHARS`). */
  cut?: true;
}

/** How long one document may take, and how much of its text is kept: past what any context window's share holds. */
export const EXTRACT_TIMEOUT_MS = 30_000;
export const MAX_TEXT_CHARS = 1_000_000;
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

const TEXT_TYPES = /^(text\/|application\/(json|yaml|toml|xml|sql)$)/;
const KIND_BY_EXTENSION: Record<string, DocumentKind> = {
  '.pdf': 'pdf',
  '.docx': 'word',
  '.odt': 'word',
  '.xlsx': 'spreadsheet',
  '.xlsm': 'spreadsheet',
  '.pptx': 'slides',
  '.log': 'text',
  '.jsonl': 'text',
  '.ndjson': 'text',
};

/** Which reader a file name gets, or null for files that are not read (images, archives, fonts). */
export function documentKind(name: string): DocumentKind | null {
  const ext = path.posix.extname(name).toLowerCase();
  if (KIND_BY_EXTENSION[ext]) return KIND_BY_EXTENSION[ext];
  const mediaType = guessMediaType(name, true);
  return mediaType !== 'image/svg+xml' && TEXT_TYPES.test(mediaType) ? 'text' : null;
}

// Both print a form feed after each slide or sheet, as pdftotext does after each page: that is how parts are counted.
const XLSX_SCRIPT = `
import csv, sys
try:
    import openpyxl
except ImportError:
    sys.stderr.write("openpyxl is not installed (the skills runtime: bin/skills runtime install)\\n"); sys.exit(3)
book = openpyxl.load_workbook(sys.argv[1], read_only=True, data_only=True)
out = csv.writer(sys.stdout, lineterminator="\\n")
for sheet in book.worksheets:
    sys.stdout.write("## Sheet: %s\\n" % sheet.title)
    for row in sheet.iter_rows(values_only=True):
        values = list(row)
        while values and values[-1] is None: values.pop()
        if values: out.writerow(["" if v is None else v for v in values])
    sys.stdout.write("\\f")
`;

const PPTX_SCRIPT = `
import re, sys, zipfile
import xml.etree.ElementTree as ET
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
z = zipfile.ZipFile(sys.argv[1])
names = set(z.namelist())
order = []
try:
    rels = ET.fromstring(z.read("ppt/_rels/presentation.xml.rels"))
    target = {r.get("Id"): "ppt/" + r.get("Target").lstrip("/").replace("ppt/", "", 1) for r in rels}
    for s in ET.fromstring(z.read("ppt/presentation.xml")).iter(P + "sldId"):
        name = target.get(s.get(R + "id"))
        if name in names: order.append(name)
except (KeyError, ET.ParseError):
    pass
if not order:
    order = sorted((n for n in names if re.fullmatch(r"ppt/slides/slide\\d+\\.xml", n)), key=lambda n: int(re.findall(r"\\d+", n)[-1]))
for i, name in enumerate(order, 1):
    sys.stdout.write("## Slide %d\\n" % i)
    for p in ET.fromstring(z.read(name)).iter(A + "p"):
        line = "".join(t.text or "" for t in p.iter(A + "t"))
        if line.strip(): sys.stdout.write(line + "\\n")
    sys.stdout.write("\\f")
`;

function argvFor(kind: Exclude<DocumentKind, 'text'>, file: string): string[] {
  switch (kind) {
    case 'pdf':
      return ['pdftotext', '-layout', '-enc', 'UTF-8', file, '-'];
    case 'word':
      return ['pandoc', '--to', 'plain', '--wrap', 'none', file];
    case 'spreadsheet':
      return ['python3', '-c', XLSX_SCRIPT, file];
    case 'slides':
      return ['python3', '-c', PPTX_SCRIPT, file];
  }
}

const PARTS_UNIT: Partial<Record<DocumentKind, DocumentParts['unit']>> = {
  pdf: 'pages',
  spreadsheet: 'sheets',
  slides: 'slides',
};

/** Line ends, form feeds and control characters out; trailing spaces and long runs of blank lines trimmed. */
export function cleanText(raw: string): string {
  return raw
    .replace(/\r\n?/g, '\n')
    .replace(/\f/g, '\n\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{4,}/g, '\n\n\n')
    .trim();
}

function readResult(raw: string, kind: DocumentKind, complete: boolean): DocumentText {
  const text = cleanText(raw);
  if (!text) {
    const reason =
      kind === 'pdf' ? 'no text found in the PDF (a scan has only images of pages)' : 'no text found in the file';
    return { state: 'failed', reason };
  }
  const unit = PARTS_UNIT[kind];
  const count = (raw.match(/\f/g) ?? []).length;
  return {
    state: 'read',
    text: text.slice(0, MAX_TEXT_CHARS),
    ...(unit && count > 0 ? { parts: { count, unit } } : {}),
    complete: complete && text.length <= MAX_TEXT_CHARS,
  };
}

/** The reader's own words for why it failed, cut to a line: "Couldn't find trailer dictionary". */
function failureReason(kind: DocumentKind, stderr: string): string {
  const said = stderr
    .split('\n')
    .map((l) => l.replace(/^(Syntax )?(Error|Warning)[^:]*:\s*/i, '').trim())
    .filter(Boolean);
  if (kind === 'pdf' && said.some((l) => /password/i.test(l))) return 'the PDF is password-protected';
  const first = said.find((l) => !/^Traceback/.test(l) && !/^File "/.test(l)) ?? '';
  const last = said.at(-1) ?? '';
  const detail = (kind === 'spreadsheet' || kind === 'slides' ? last : first).slice(0, 200);
  const what = { pdf: 'PDF', word: 'document', spreadsheet: 'spreadsheet', slides: 'presentation', text: 'file' }[kind];
  return `the ${what} is damaged or not what its name says${detail ? ` (${detail})` : ''}`;
}

/** The person a read counts against (the caller's, else the chat's owner in meta.json): one turn per person, not chat. */
async function readerOf(config: ExecutionConfig, chatId: string, owner: string | undefined): Promise<string> {
  if (owner) return owner;
  return (await readMeta(config.workspace.dir, chatId)).owner ?? `chat:${chatId}`;
}

type Attempt = { text: DocumentText; keep: 'disk' | 'memory' | 'no' };

async function readInSandbox(
  config: ExecutionConfig,
  chatId: string,
  name: string,
  kind: Exclude<DocumentKind, 'text'>,
  options: ReadOptions,
): Promise<Attempt> {
  const limits = sandboxLimits(config);
  const run = await runSandboxed(
    {
      argv: argvFor(kind, `${SANDBOX_PATHS.workspace}/${name}`),
      mounts: [],
      workspace: folderFiles(workspaceDir(config.workspace.dir, chatId), {
        maxBytes: limits.maxWorkspaceBytes,
        maxEntries: limits.maxWorkspaceEntries,
      }),
      limits: {
        ...limits,
        timeoutMs: Math.min(limits.timeoutMs, EXTRACT_TIMEOUT_MS),
        maxOutputBytes: MAX_OUTPUT_BYTES,
      },
    },
    { execution: config, chatId, owner: await readerOf(config, chatId, options.owner), signal: options.signal },
  );
  if (!run.ok) {
    const why = run.result.errorCode === 'aborted' ? 'stopped before it was read' : (run.result.error ?? 'no sandbox');
    return { text: { state: 'failed', reason: why }, keep: run.result.errorCode === 'aborted' ? 'no' : 'memory' };
  }
  const { output } = run;
  if (output.stop === 'output-limit') return { text: readResult(output.stdout, kind, false), keep: 'disk' };
  if (output.stop === 'aborted') return { text: { state: 'failed', reason: 'stopped before it was read' }, keep: 'no' };
  if (output.stop === 'sandbox-error') {
    return { text: { state: 'failed', reason: output.error ?? 'the sandbox failed' }, keep: 'memory' };
  }
  if (output.stop) {
    const reason = `reading it took more than the limit (${output.error ?? output.stop})`;
    return { text: { state: 'failed', reason }, keep: 'disk' };
  }
  if (output.exitCode === 3 && kind === 'spreadsheet') {
    return { text: { state: 'failed', reason: output.stderr.trim() }, keep: 'memory' };
  }
  if (output.exitCode !== 0) {
    return { text: { state: 'failed', reason: failureReason(kind, output.stderr) }, keep: 'disk' };
  }
  return { text: readResult(output.stdout, kind, true), keep: 'disk' };
}

async function readPlainText(config: ExecutionConfig, chatId: string, name: string): Promise<Attempt> {
  const opened = await openWorkspaceFile(config.workspace.dir, chatId, name);
  if (!opened) return { text: { state: 'failed', reason: 'the file is gone' }, keep: 'no' };
  try {
    const max = MAX_TEXT_CHARS * 2;
    const buffer = Buffer.alloc(Math.min(opened.size, max));
    const { bytesRead } = await opened.handle.read(buffer, 0, buffer.length, 0);
    const bytes = buffer.subarray(0, bytesRead);
    if (bytes.subarray(0, 8192).includes(0)) {
      return { text: { state: 'failed', reason: 'the file is not text (it holds binary data)' }, keep: 'disk' };
    }
    // A character cut at the cap decodes to U+FFFD at the very end: dropped with the rest of the cut.
    const raw = new TextDecoder('utf-8').decode(bytes);
    const complete = opened.size <= max;
    return { text: readResult(complete ? raw : raw.replace(/\uFFFD$/, ''), 'text', complete), keep: 'disk' };
  } finally {
    await opened.handle.close();
  }
}

interface Fingerprint {
  size: number;
  mtimeMs: number;
  ino: number;
}

interface CacheEntry extends Fingerprint {
  name: string;
  text: DocumentText;
}

function cacheFile(root: string, chatId: string, name: string): string {
  const key = createHash('sha256').update(name).digest('hex').slice(0, 32);
  return path.join(/*turbopackIgnore: true*/ chatFolder(root, chatId), 'text', `${key}.json`);
}

async function fingerprint(root: string, chatId: string, name: string): Promise<Fingerprint | null> {
  const file = path.join(/*turbopackIgnore: true*/ workspaceDir(root, chatId), name);
  const stat = await fs.promises.lstat(/*turbopackIgnore: true*/ file).catch(() => null);
  if (!stat?.isFile()) return null;
  return { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino };
}

const sameFile = (a: Fingerprint, b: Fingerprint) => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;

async function cached(root: string, chatId: string, name: string, print: Fingerprint): Promise<DocumentText | null> {
  try {
    const entry = JSON.parse(
      await fs.promises.readFile(/*turbopackIgnore: true*/ cacheFile(root, chatId, name), 'utf8'),
    );
    return entry?.name === name && sameFile(entry, print) ? (entry as CacheEntry).text : null;
  } catch {
    return null;
  }
}

async function keep(root: string, chatId: string, name: string, print: Fingerprint, text: DocumentText) {
  const file = cacheFile(root, chatId, name);
  const entry: CacheEntry = { name, ...print, text };
  try {
    await fs.promises.mkdir(/*turbopackIgnore: true*/ path.dirname(/*turbopackIgnore: true*/ file), {
      recursive: true,
      mode: 0o700,
    });
    await fs.promises.writeFile(/*turbopackIgnore: true*/ `${file}.tmp`, JSON.stringify(entry));
    await fs.promises.rename(/*turbopackIgnore: true*/ `${file}.tmp`, file);
  } catch {
    // The chat was deleted meanwhile, or the disk is full: the text is still this turn's, just not kept.
  }
}

// Reads under way (one per file: the upload's and the turn's share it) and failures kept only in memory;
// process-wide, since the upload and the turn run in different route bundles.
const { running, remembered } = processWide('document-reads', () => ({
  running: new Map<string, Promise<DocumentText>>(),
  remembered: new KeptMap<string, DocumentText>(500),
}));
const runKey = (chatId: string, name: string, print: Fingerprint) =>
  `${chatId}\0${name}\0${print.size}\0${print.mtimeMs}\0${print.ino}`;

export interface ReadOptions {
  /** Stop (the turn's): an unfinished read is cancelled and not kept. */
  signal?: AbortSignal;
  /** Whose fair share of run slots the read counts against (default: the chat's owner). */
  owner?: string;
}

/**
 * The text of a workspace file, read once per version of the file: from the cache, from a read under way, or read
 * now. Null when the file is missing, not a regular file, or not a kind that is read.
 */
export async function readDocument(
  config: ExecutionConfig,
  chatId: string,
  name: string,
  options: ReadOptions = {},
): Promise<DocumentText | null> {
  const kind = documentKind(name);
  // Names come from a message's attachments, which the browser sends: one plain segment, as uploads are named.
  if (!kind || !isSafeFileName(name)) return null;
  const root = config.workspace.dir;
  const print = await fingerprint(root, chatId, name);
  if (!print) return null;
  const key = runKey(chatId, name, print);
  const known = (await cached(root, chatId, name, print)) ?? remembered.get(key);
  if (known) return known;
  const pending = running.get(key);
  if (pending) return pending;
  const read = (async () => {
    const attempt =
      kind === 'text'
        ? await readPlainText(config, chatId, name)
        : await readInSandbox(config, chatId, name, kind, options);
    if (attempt.keep === 'disk') await keep(root, chatId, name, print, attempt.text);
    if (attempt.keep === 'memory') remembered.set(key, attempt.text);
    return attempt.text;
  })().finally(() => running.delete(key));
  running.set(key, read);
  return read;
}

/** What the files list says of a file's text, without waiting: `pending` starts the read in the background. */
export async function documentState(
  config: ExecutionConfig,
  chatId: string,
  name: string,
  owner?: string,
): Promise<FileTextState> {
  if (!documentKind(name) || !isSafeFileName(name)) return { state: 'none' };
  const root = config.workspace.dir;
  const print = await fingerprint(root, chatId, name);
  if (!print) return { state: 'none' };
  const key = runKey(chatId, name, print);
  const known = (await cached(root, chatId, name, print)) ?? remembered.get(key);
  if (!known) {
    if (!running.has(key)) void readDocument(config, chatId, name, { owner }).catch(() => {});
    return { state: 'pending' };
  }
  if (known.state === 'failed') return { state: 'failed', reason: known.reason };
  return {
    state: 'read',
    chars: known.text.length,
    ...(known.parts ? { parts: known.parts } : {}),
    ...(known.complete ? {} : { cut: true as const }),
  };
}

/** The files list with each upload's text state (script outputs are never attached, so never read for it). */
export function withTextStates(
  config: ExecutionConfig,
  chatId: string,
  files: WorkspaceFile[],
  owner?: string,
): Promise<(WorkspaceFile & { text: FileTextState })[]> {
  return Promise.all(
    files.map(async (f) => ({
      ...f,
      text: f.origin === 'upload' ? await documentState(config, chatId, f.name, owner) : { state: 'none' as const },
    })),
  );
}
