/**
 * The documents a person attached to their messages, in what the model is sent: each file's text (read in the
 * sandbox by documents/extract.ts, kept per file) goes before the words of the message it came with, as
 *
 *   <attached_document name="report.pdf" pages="3">…</attached_document>
 *
 * and never into the stored message. A file attached to several messages goes with the latest. Files that are not
 * documents (images, archives) add nothing: the workspace line of the instructions names every file.
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
  contextWindow?: number;
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
  const read = await Promise.all(names.map((name) => options.read(name)));
  const found = names.flatMap((name, i) => (read[i] ? [{ name, document: read[i]! }] : []));
  const lengths = found.map(({ document }) => (document.state === 'read' ? document.text.length : 0));
  const shares = fairShares(lengths, documentBudget(options.contextWindow));
  const rendered = new Map(found.map(({ name, document }, i) => [name, renderDocument(name, document, shares[i]!)]));
  return messages.map((m, i) => {
    const own = names.filter((name) => owner.get(name) === i && rendered.has(name));
    if (own.length === 0) return m;
    const documents = own.map((name) => ({ type: 'text' as const, text: rendered.get(name)! }));
    return { ...m, parts: [...documents, ...m.parts] };
  });
}
