/** Browser-side calls for a chat's workspace files (`/api/chats/:id/files`). */
import { errorMessageFrom } from '@/components/lib/api';
import type { Attachment, WorkspaceFileView } from '@/server/chat/wire-types';
import type { FileVersionEntry } from '@/server/workspace/file-versions';

/** A file's path in a URL: each segment escaped, the `/` between them kept (`pages/p-1.png`). */
function pathInUrl(name: string): string {
  return name.split('/').map(encodeURIComponent).join('/');
}

export function fileUrl(chatId: string, name: string, preview = false): string {
  return `/api/chats/${encodeURIComponent(chatId)}/files/${pathInUrl(name)}${preview ? '?preview=1' : ''}`;
}

/** The bytes of a kept version of a file (`server/workspace/file-versions.ts`). */
export function versionUrl(chatId: string, name: string, version: string): string {
  return `${fileUrl(chatId, name)}?version=${encodeURIComponent(version)}`;
}

/** The versions of a file the chat's runs wrote, oldest first; empty when it has none or they cannot be listed. */
export async function listVersions(chatId: string, name: string, signal?: AbortSignal): Promise<FileVersionEntry[]> {
  const response = await fetch(`${fileUrl(chatId, name)}?versions=1`, { signal, credentials: 'same-origin' });
  if (!response.ok) return [];
  return ((await response.json()) as { versions: FileVersionEntry[] }).versions;
}

/** A PNG of one page of a document (a PDF; Office files once they are converted). */
export function pageUrl(chatId: string, name: string, page: number): string {
  return `${fileUrl(chatId, name)}?preview=1&page=${page}`;
}

/** A page a skill built, served for the viewer's sandboxed frame. */
export function liveUrl(chatId: string, name: string): string {
  return `/api/chats/${encodeURIComponent(chatId)}/view/${pathInUrl(name)}`;
}

/** How many pages the preview route can show of a file; null when it has no preview. */
export async function pageCount(chatId: string, name: string, signal?: AbortSignal): Promise<number | null> {
  const response = await fetch(`${fileUrl(chatId, name)}?pages=1`, { signal, credentials: 'same-origin' });
  if (!response.ok) return null;
  return ((await response.json()) as { pages: number | null }).pages;
}

export async function uploadFile(chatId: string, file: File): Promise<Attachment> {
  const form = new FormData();
  form.append('file', file);
  const response = await fetch(`/api/chats/${encodeURIComponent(chatId)}/files`, {
    method: 'POST',
    body: form,
    credentials: 'same-origin',
  });
  const body = await response.text();
  if (!response.ok) throw new Error(errorMessageFrom(body, `Upload failed (${response.status})`));
  return (JSON.parse(body) as { file: Attachment }).file;
}

export async function listFiles(chatId: string, signal?: AbortSignal): Promise<WorkspaceFileView[]> {
  const response = await fetch(`/api/chats/${encodeURIComponent(chatId)}/files`, {
    signal,
    credentials: 'same-origin',
  });
  if (response.status === 404) return [];
  if (!response.ok) throw new Error(errorMessageFrom(await response.text(), 'Could not list the files'));
  return ((await response.json()) as { files: WorkspaceFileView[] }).files;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
