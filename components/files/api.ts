/** Browser-side calls for a chat's workspace files (`/api/chats/:id/files`). */
import { errorMessageFrom } from '@/components/lib/api';
import type { Attachment, WorkspaceFileView } from '@/server/chat/wire-types';

export function fileUrl(chatId: string, name: string, preview = false): string {
  return `/api/chats/${encodeURIComponent(chatId)}/files/${encodeURIComponent(name)}${preview ? '?preview=1' : ''}`;
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
