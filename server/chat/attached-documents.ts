/**
 * The documents a person attached to their messages, in what the model is sent: each file's text (read in the
 * sandbox by documents/extract.ts, kept per file) goes before the words of the message it came with, as
 *
 *   <attached_document name="report.pdf" pages="3">…</attached_document>
 *
 * and never into the stored message. A file attached to several messages goes with the latest. Files that are not
 * documents (images, archives) add nothing: the workspace line of the instructions names every file. A model that
 * reads PDFs itself (`model/file-parts.ts`) is sent each PDF as a file part instead, while they fit `PDF_FILES_BYTES`
 * a turn; the rest go as text.
 *
 * The bound: `DOCUMENT_SHARE` of the context window (about `CHARS_PER_TOKEN` characters a token), or
 * `FALLBACK_DOCUMENT_CHARS` when the window is unknown, shared fairly (a short document takes what it needs, the
 * others split the rest), each cut document ending with a note of what was left out.
 */

import type { DocumentText } from '../documents/extract';
import { DOCUMENT_TAG, UNREADABLE_LABEL } from '../prompt/keys';
import type { ChatMessage } from './wire-types';

export const DOCUMENT_SHARE = 0.25;
export const CHARS_PER_TOKEN = 4;
export const FALLBACK_DOCUMENT_CHARS = 60_000;
/** Bytes of PDFs one turn sends as file parts, newest attachment first; the others go as text. */
export const PDF_FILES_BYTES = 24 * 1024 * 1024;

/** Characters of document text one turn may send. */
export function documentBudget(contextWindow: number | undefined): number {
  return contextWindow ? Math.floor(contextWindow * DOCUMENT_SHARE * CHARS_PER_TOKEN) : FALLBACK_DOCUMENT_CHARS;
}

/** Max-min fair shares of `budget` for texts of these lengths, in their order. */
export function fairShares(lengths: readonly number[], budget: number): number[] {
  const shares = new Array<number>(lengths.length).fill(0);
  let left = budget;
  let waiting = lengths.length;
  for (const i of lengths.map((_, i) => i).sort((a, b) => lengths[a]! - lengths[b]!)) {
    shares[i] = Math.min(lengths[i]!, Math.floor(left / waiting));
    left -= shares[i]!;
    waiting--;
  }
  return shares;
}

const count = (n: number) => n.toLocaleString('en-US');

function attribute(value: string): string {
  return value
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

const WRAPPER = new RegExp(`<(\\s*\\/?\\s*${DOCUMENT_TAG})`, 'gi');

/** A document cannot open or close the wrapper: `</attached_document` in its text is written `&lt;/attached_document`. */
function neutralise(text: string): string {
  return text.replace(WRAPPER, '&lt;$1');
}

/** The first `chars` characters, never half of a surrogate pair. */
function head(text: string, chars: number): string {
  const cut = text.slice(0, chars);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** One document as the model reads it, its text cut to `keep` characters with a note when that leaves some out. */
export function renderDocument(name: string, document: DocumentText, keep: number): string {
  const open = `<${DOCUMENT_TAG} name="${attribute(name)}"`;
  if (document.state === 'failed') {
    return `${open} unreadable="true">${UNREADABLE_LABEL}${neutralise(document.reason)}</${DOCUMENT_TAG}>`;
  }
  const { text, parts, complete } = document;
  const counted = parts ? ` ${parts.unit}="${parts.count}"` : '';
  const omitted = text.length - keep;
  const notes = [
    omitted > 0 ? `[document truncated: ${count(omitted)} of ${count(text.length)} characters left out]` : '',
    complete ? '' : `[the file's text goes on past the ${count(text.length)} characters read from it]`,
  ].filter(Boolean);
  const body = neutralise(head(text, keep));
  return `${open}${counted}>\n${body}${notes.length ? `\n${notes.join('\n')}` : ''}\n</${DOCUMENT_TAG}>`;
}

export interface AttachOptions {
  /** A workspace file's text (`readDocument`); null for files that are gone or are not documents. */
  read: (name: string) => Promise<DocumentText | null>;
  /** A PDF's bytes, for a model that reads PDFs (`documents/pdf-file.ts`); null: send its text. Absent: text only. */
  pdfFile?: (name: string) => Promise<Uint8Array | null>;
  contextWindow?: number;
}

type DocumentPart = ChatMessage['parts'][number];

/** Newest first, the PDFs that go whole while their bytes fit `PDF_FILES_BYTES`. */
async function pdfParts(names: readonly string[], options: AttachOptions): Promise<Map<string, DocumentPart>> {
  const parts = new Map<string, DocumentPart>();
  if (!options.pdfFile) return parts;
  let left = PDF_FILES_BYTES;
  for (const name of names) {
    const bytes = await options.pdfFile(name);
    if (!bytes || bytes.length > left) continue;
    left -= bytes.length;
    const url = `data:application/pdf;base64,${Buffer.from(bytes).toString('base64')}`;
    parts.set(name, { type: 'file', mediaType: 'application/pdf', filename: name, url });
  }
  return parts;
}

/** The messages with each user message's attached documents before its words, bounded as above. */
export async function attachDocuments(messages: ChatMessage[], options: AttachOptions): Promise<ChatMessage[]> {
  // Latest message first, so a file attached twice goes with the later message.
  const owner = new Map<string, number>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    for (const { name } of m.metadata?.attachments ?? []) if (!owner.has(name)) owner.set(name, i);
  }
  if (owner.size === 0) return messages;
  const names = [...owner.keys()];
  const files = await pdfParts(names, options);
  const asText = names.filter((name) => !files.has(name));
  const read = await Promise.all(asText.map((name) => options.read(name)));
  const found = asText.flatMap((name, i) => (read[i] ? [{ name, document: read[i]! }] : []));
  const lengths = found.map(({ document }) => (document.state === 'read' ? document.text.length : 0));
  const shares = fairShares(lengths, documentBudget(options.contextWindow));
  const rendered = new Map<string, DocumentPart>(
    found.map(({ name, document }, i) => [name, { type: 'text', text: renderDocument(name, document, shares[i]!) }]),
  );
  for (const [name, part] of files) rendered.set(name, part);
  return messages.map((m, i) => {
    const own = names.filter((name) => owner.get(name) === i && rendered.has(name));
    if (own.length === 0) return m;
    return { ...m, parts: [...own.map((name) => rendered.get(name)!), ...m.parts] };
  });
}
