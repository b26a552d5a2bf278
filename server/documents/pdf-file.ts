/**
 * An attached PDF as its bytes, for a model that reads PDFs itself (`model/file-parts.ts`): sent whole as a file
 * part, its pages seen as the provider renders them, instead of the text `extract.ts` reads. Over the cap the
 * caller falls back to that text.
 */
import { isSafeFileName } from '../workspace/file-names';
import { openWorkspaceFile } from '../workspace/workspace';

/** Bytes of one PDF sent as a file part (OpenAI takes 50 MB a request, Anthropic 32 MB; base64 adds a third). */
export const MAX_PDF_PART_BYTES = 10 * 1024 * 1024;

const PDF_MAGIC = '%PDF-';

/** The bytes of workspace file `name` when it is a PDF of at most `maxBytes`; null otherwise (gone, too big, not a PDF). */
export async function readPdfFile(
  root: string,
  chatId: string,
  name: string,
  maxBytes = MAX_PDF_PART_BYTES,
): Promise<Uint8Array | null> {
  // Names come from a message's attachments, which the browser sends: one plain segment, as uploads are named.
  if (!/\.pdf$/i.test(name) || !isSafeFileName(name)) return null;
  const opened = await openWorkspaceFile(root, chatId, name);
  if (!opened) return null;
  try {
    if (opened.size > maxBytes || opened.size < PDF_MAGIC.length) return null;
    const bytes = new Uint8Array(opened.size);
    const { bytesRead } = await opened.handle.read(bytes, 0, bytes.length, 0);
    if (bytesRead !== opened.size) return null;
    // Readers accept a little junk before the header, as long as it starts within the first KiB.
    const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
    return head.includes(PDF_MAGIC) ? bytes : null;
  } finally {
    await opened.handle.close();
  }
}
