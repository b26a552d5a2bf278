/**
 * Pages of a document as PNGs for the files viewer: every page of a PDF, and Word, PowerPoint, Excel and
 * OpenDocument files as the pages LibreOffice makes of them. A document is untrusted input for a parser, so
 * pdftoppm and soffice run in the same sandbox as scripts (`runSandboxed`: a run slot, the backend, a time limit,
 * an output cap), never on the host.
 *
 * Each file version (size, mtime, inode: file-version.ts) is converted and each page rendered once; what was made,
 * and a failure that would fail again, is kept beside the chat's meta.json, outside the sandbox's reach:
 *
 *   <workspaces>/<chatId>/preview/<sha256 of the path>/version.json  { path, size, mtimeMs, ino, pages | failure }
 *                                                     /pdf/document.pdf  an office file converted (its own folder:
 *                                                                        the only one a page's run sees)
 *                                                     /page-<n>.png, /page-<n>.failed
 *
 * Fair to everyone: the runs queue under the chat's owner (the person), so one person's previews take their turn
 * with that person's commands, not one turn per chat; one run per file at a time, and the same request while one is
 * under way shares it; at most MAX_QUEUED_PREVIEWS runs per person wait or run, more are refused with a 429.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors';
import { KeptMap } from '../kept-map';
import { processWide } from '../process-wide';
import type { ExecutionConfig } from '../sandbox/config';
import { sandboxLimits } from '../sandbox/config';
import { SANDBOX_PATHS } from '../sandbox/port';
import { runSandboxed } from '../sandbox/run';
import { readMeta } from '../workspace/folders';
import { folderFiles } from '../workspace/run-files';
import { chatFolder, workspaceDir } from '../workspace/workspace';
import { type FileVersion, fileVersion, sameVersion, versionKey } from './file-version';

/** Preview runs one person may have waiting or running at once; the next is refused (429). */
export const MAX_QUEUED_PREVIEWS = 8;
/** How long one page may take to render, and one office file to convert (never longer than the sandbox's limit). */
export const PAGE_TIMEOUT_MS = 15_000;
export const CONVERT_TIMEOUT_MS = 60_000;
const MAX_PNG_BYTES = 8 * 1024 * 1024;
const MAX_PDF_BYTES = 64 * 1024 * 1024;
/** Pixels of a page's longer side. */
const PAGE_PIXELS = 1280;

export type PreviewKind = 'pdf' | 'office';

const OFFICE_EXTENSIONS = new Set([
  '.doc',
  '.docx',
  '.odt',
  '.rtf',
  '.ppt',
  '.pptx',
  '.odp',
  '.xls',
  '.xlsx',
  '.xlsm',
  '.ods',
]);

/** Whether a file gets page previews, and how: a PDF directly, an office file through LibreOffice. */
export function previewKind(rel: string): PreviewKind | null {
  const ext = path.posix.extname(rel).toLowerCase();
  if (ext === '.pdf') return 'pdf';
  return OFFICE_EXTENSIONS.has(ext) ? 'office' : null;
}

interface Kept extends FileVersion {
  path: string;
  pages?: number;
  failure?: string;
}

type Outcome<T> = { value: T; keep: 'disk' | 'memory' | 'no' } | { failure: string; keep: 'disk' | 'memory' | 'no' };

// Runs under way by what they make (one per file version and page), each file's last run (the next waits for it),
// preview runs per person, and failures kept in memory only (no sandbox here): process-wide, since the files route
// and the turn are separate bundles.
const state = processWide('previews', () => ({
  running: new Map<string, Promise<unknown>>(),
  files: new Map<string, Promise<unknown>>(),
  queued: new Map<string, number>(),
  remembered: new KeptMap<string, string>(500),
}));

/** How many pages the file has as a preview; null when it has none (not a document, missing, or it failed). */
export async function previewPages(
  config: ExecutionConfig,
  chatId: string,
  path: string,
  owner?: string,
): Promise<number | null> {
  const doc = await previewDocument(config, chatId, path, owner);
  return doc?.pages ?? null;
}

/** A PNG of one page (from 1); null when there is none. Throws a 429 AppError when the person has too many waiting. */
export async function renderPreview(
  config: ExecutionConfig,
  chatId: string,
  path: string,
  page = 1,
  owner?: string,
): Promise<Buffer | null> {
  if (!Number.isInteger(page) || page < 1) return null;
  const doc = await previewDocument(config, chatId, path, owner);
  if (!doc || page > doc.pages) return null;
  const png = (name: string) => `${doc.folder}/page-${page}.${name}`;
  const known = await readKept(png('png'), png('failed'));
  if (known !== undefined) return known;
  const key = `${doc.key}\0page ${page}`;
  if (state.remembered.get(key)) return null;
  const who = await ownerOf(config, chatId, owner);
  return queued(key, doc.key, who, async () => {
    const again = await readKept(png('png'), png('failed'));
    if (again !== undefined) return again;
    const outcome = await renderPage({ config, chatId, owner: who }, path, doc, page);
    if ('value' in outcome) {
      await writeAtomic(png('png'), outcome.value);
      return outcome.value;
    }
    if (outcome.keep === 'disk') await writeAtomic(png('failed'), Buffer.from(outcome.failure));
    if (outcome.keep === 'memory') state.remembered.set(key, outcome.failure);
    return null;
  });
}

/** Whose runs these are: the chat and the person they queue under. */
interface Ctx {
  config: ExecutionConfig;
  chatId: string;
  owner: string;
}

interface PreviewDocument {
  kind: PreviewKind;
  version: FileVersion;
  /** The file's cache folder, and what its runs are keyed by. */
  folder: string;
  key: string;
  pages: number;
}

/** The file's page count, from its cache, a run under way or a run now (which renders page 1 on the way). */
async function previewDocument(
  config: ExecutionConfig,
  chatId: string,
  rel: string,
  owner: string | undefined,
): Promise<PreviewDocument | null> {
  const kind = previewKind(rel);
  if (!kind) return null;
  const root = config.workspace.dir;
  const version = await fileVersion(root, chatId, rel);
  if (!version) return null;
  const folder = cacheFolder(root, chatId, rel);
  const key = versionKey(chatId, rel, version);
  const made = (pages: number): PreviewDocument => ({ kind, version, folder, key, pages });
  const known = await readVersion(folder, rel, version);
  if (known) return known.pages ? made(known.pages) : null;
  if (state.remembered.get(key)) return null;
  const who = await ownerOf(config, chatId, owner);
  const ctx = { config, chatId, owner: who };
  return queued(key, key, who, async () => {
    const again = await readVersion(folder, rel, version);
    if (again) return again.pages ? made(again.pages) : null;
    // A new version: what was kept of the old one goes.
    await fs.promises.rm(/*turbopackIgnore: true*/ folder, { recursive: true, force: true });
    const outcome = kind === 'pdf' ? await firstPageOfPdf(ctx, rel) : await convertOffice(ctx, rel, folder);
    if ('failure' in outcome) {
      if (outcome.keep === 'disk') await writeVersion(folder, { path: rel, ...version, failure: outcome.failure });
      if (outcome.keep === 'memory') state.remembered.set(key, outcome.failure);
      return null;
    }
    const { pages, firstPage } = outcome.value;
    if (firstPage) await writeAtomic(`${folder}/page-1.png`, firstPage);
    await writeVersion(folder, { path: rel, ...version, pages });
    return made(pages);
  });
}

/**
 * Runs `work` once per `key` at a time (a second caller gets the same promise), after the file's previous run,
 * counted against `owner`'s queued previews.
 */
function queued<T>(key: string, fileKey: string, owner: string, work: () => Promise<T>): Promise<T> {
  const pending = state.running.get(key);
  if (pending) return pending as Promise<T>;
  const count = state.queued.get(owner) ?? 0;
  if (count >= MAX_QUEUED_PREVIEWS) {
    throw new AppError(
      'rate_limited:preview',
      `You have ${count} previews waiting or being made; try again when they are done`,
    );
  }
  state.queued.set(owner, count + 1);
  const before = state.files.get(fileKey) ?? Promise.resolve();
  const run = before
    .catch(() => {})
    .then(work)
    .finally(() => {
      state.running.delete(key);
      const left = (state.queued.get(owner) ?? 1) - 1;
      if (left > 0) state.queued.set(owner, left);
      else state.queued.delete(owner);
      if (state.files.get(fileKey) === run) state.files.delete(fileKey);
    });
  state.running.set(key, run);
  state.files.set(fileKey, run);
  return run;
}

/** The person the chat's runs count against: the caller's, else the owner kept in the chat's meta.json. */
async function ownerOf(config: ExecutionConfig, chatId: string, owner: string | undefined): Promise<string> {
  if (owner) return owner;
  return (await readMeta(config.workspace.dir, chatId)).owner ?? `chat:${chatId}`;
}

function cacheFolder(root: string, chatId: string, rel: string): string {
  const name = createHash('sha256').update(rel).digest('hex').slice(0, 32);
  return path.join(/*turbopackIgnore: true*/ chatFolder(root, chatId), 'preview', name);
}

async function readVersion(folder: string, rel: string, version: FileVersion): Promise<Kept | null> {
  try {
    const kept = JSON.parse(await fs.promises.readFile(/*turbopackIgnore: true*/ `${folder}/version.json`, 'utf8'));
    return kept?.path === rel && sameVersion(kept, version) ? (kept as Kept) : null;
  } catch {
    return null;
  }
}

function writeVersion(folder: string, kept: Kept): Promise<void> {
  return writeAtomic(`${folder}/version.json`, Buffer.from(JSON.stringify(kept)));
}

/** A kept page: its bytes, null for a kept failure, undefined when neither is kept. */
async function readKept(png: string, failed: string): Promise<Buffer | null | undefined> {
  const bytes = await fs.promises.readFile(/*turbopackIgnore: true*/ png).catch(() => undefined);
  if (bytes) return bytes;
  return fs.existsSync(/*turbopackIgnore: true*/ failed) ? null : undefined;
}

async function writeAtomic(file: string, bytes: Buffer): Promise<void> {
  try {
    await fs.promises.mkdir(/*turbopackIgnore: true*/ path.dirname(file), { recursive: true, mode: 0o755 });
    await fs.promises.writeFile(/*turbopackIgnore: true*/ `${file}.tmp`, bytes, { mode: 0o644 });
    await fs.promises.rename(/*turbopackIgnore: true*/ `${file}.tmp`, file);
  } catch {
    // The chat was deleted meanwhile, or the disk is full: the preview is still this request's, just not kept.
  }
}

const pagesIn = (text: string) => Number(/^Pages:\s+(\d+)\s*$/m.exec(text)?.[1] ?? 0);

function pdftoppm(file: string, page: number): string[] {
  // No PPM root: pdftoppm writes the image to stdout.
  const n = String(page);
  return ['pdftoppm', '-png', '-f', n, '-l', n, '-scale-to', String(PAGE_PIXELS), '-singlefile', file];
}

type Sandboxed = Awaited<ReturnType<typeof runSandboxed>>;

/** Why a run made nothing, and whether that is the file's doing (kept on disk) or this machine's (in memory). */
function failureOf(run: Sandboxed, what: string): Outcome<never> | null {
  if (!run.ok) {
    const aborted = run.result.errorCode === 'aborted';
    return { failure: run.result.error ?? 'no sandbox', keep: aborted ? 'no' : 'memory' };
  }
  const { output } = run;
  if (output.stop === 'aborted') return { failure: 'stopped', keep: 'no' };
  if (output.stop === 'sandbox-error') return { failure: output.error ?? 'the sandbox failed', keep: 'memory' };
  if (output.stop)
    return { failure: `${what} took more than the limit (${output.error ?? output.stop})`, keep: 'disk' };
  if (output.exitCode !== 0) {
    const said = output.stderr.split('\n').find((l) => /error/i.test(l)) ?? '';
    return { failure: `${what} failed${said ? ` (${said.trim().slice(0, 200)})` : ''}`, keep: 'disk' };
  }
  return null;
}

/** One sandboxed helper run over `dir` (bound at /workspace, read by nothing else of the server's). */
function runOver(
  { config, chatId, owner }: Ctx,
  dir: string,
  argv: string[],
  timeoutMs: number,
  maxOutputBytes: number,
): Promise<Sandboxed> {
  const limits = sandboxLimits(config);
  return runSandboxed(
    {
      argv,
      mounts: [],
      workspace: folderFiles(dir, { maxBytes: limits.maxWorkspaceBytes, maxEntries: limits.maxWorkspaceEntries }),
      limits: { ...limits, timeoutMs: Math.min(limits.timeoutMs, timeoutMs), maxOutputBytes },
    },
    { execution: config, chatId, owner },
  );
}

/** A PDF's page count (pdfinfo, on stderr) and its first page (stdout), in one run. */
async function firstPageOfPdf(ctx: Ctx, rel: string): Promise<Outcome<{ pages: number; firstPage: Buffer }>> {
  const script = 'pdfinfo "$1" >&2 && shift && exec "$@"';
  const file = `${SANDBOX_PATHS.workspace}/${rel}`;
  const argv = ['bash', '-c', script, 'preview', file, ...pdftoppm(file, 1)];
  const run = await runOver(
    ctx,
    workspaceDir(ctx.config.workspace.dir, ctx.chatId),
    argv,
    PAGE_TIMEOUT_MS,
    MAX_PNG_BYTES,
  );
  const failed = failureOf(run, 'reading the PDF');
  if (failed) return failed;
  if (!run.ok) throw new Error('unreachable');
  const pages = pagesIn(run.output.stderr);
  const firstPage = run.output.stdoutBytes;
  if (!pages || !firstPage?.length) return { failure: 'the PDF has no pages', keep: 'disk' };
  return { value: { pages, firstPage }, keep: 'disk' };
}

/**
 * An office file as a PDF (LibreOffice, from a copy in the run's /tmp so no lock file lands in the chat's files),
 * kept in the file's cache folder; its page count on the way.
 */
async function convertOffice(
  ctx: Ctx,
  rel: string,
  folder: string,
): Promise<Outcome<{ pages: number; firstPage?: Buffer }>> {
  const ext = path.posix.extname(rel).toLowerCase();
  const script = [
    'set -e',
    'mkdir -p /tmp/preview/in /tmp/preview/out',
    `cp -- "$1" /tmp/preview/in/document${ext}`,
    `soffice --headless --norestore --convert-to pdf --outdir /tmp/preview/out /tmp/preview/in/document${ext} >&2`,
    'pdfinfo /tmp/preview/out/document.pdf >&2',
    'cat /tmp/preview/out/document.pdf',
  ].join('\n');
  const file = `${SANDBOX_PATHS.workspace}/${rel}`;
  const argv = ['bash', '-c', script, 'preview', file];
  const dir = workspaceDir(ctx.config.workspace.dir, ctx.chatId);
  const run = await runOver(ctx, dir, argv, CONVERT_TIMEOUT_MS, MAX_PDF_BYTES);
  const failed = failureOf(run, 'converting it with LibreOffice');
  if (failed) return failed;
  if (!run.ok) throw new Error('unreachable');
  const pages = pagesIn(run.output.stderr);
  const pdf = run.output.stdoutBytes;
  if (!pages || !pdf?.length) return { failure: 'LibreOffice made no pages of it', keep: 'disk' };
  await writeAtomic(`${folder}/pdf/document.pdf`, pdf);
  return { value: { pages }, keep: 'disk' };
}

/** One page: from the chat's workspace for a PDF, from the converted PDF's own folder for an office file. */
async function renderPage(ctx: Ctx, rel: string, doc: PreviewDocument, page: number): Promise<Outcome<Buffer>> {
  const [dir, file] =
    doc.kind === 'pdf'
      ? [workspaceDir(ctx.config.workspace.dir, ctx.chatId), `${SANDBOX_PATHS.workspace}/${rel}`]
      : [`${doc.folder}/pdf`, `${SANDBOX_PATHS.workspace}/document.pdf`];
  const run = await runOver(ctx, dir, pdftoppm(file, page), PAGE_TIMEOUT_MS, MAX_PNG_BYTES);
  const failed = failureOf(run, `rendering page ${page}`);
  if (failed) return failed;
  if (!run.ok) throw new Error('unreachable');
  const png = run.output.stdoutBytes;
  return png?.length ? { value: png, keep: 'disk' } : { failure: `page ${page} rendered empty`, keep: 'disk' };
}
