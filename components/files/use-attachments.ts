'use client';
/**
 * The composer's attachments: files picked with the button, dropped on the composer or pasted are uploaded at once
 * (so the server's caps answer before the message is sent) and kept as chips until the message goes.
 */
import { type ClipboardEvent, type DragEvent, useCallback, useState } from 'react';
import type { Attachment } from '@/server/chat/wire-types';

export function useAttachments(upload: ((file: File) => Promise<Attachment>) | undefined) {
  const [attached, setAttached] = useState<Attachment[]>([]);
  const [uploading, setUploading] = useState(0);
  const [error, setError] = useState<string | null>(null);

  const add = useCallback(
    async (files: File[]) => {
      if (!upload || files.length === 0) return;
      setError(null);
      setUploading((n) => n + files.length);
      for (const file of files) {
        try {
          const saved = await upload(file);
          setAttached((list) => [...list.filter((a) => a.name !== saved.name), saved]);
        } catch (e) {
          setError(`${file.name}: ${e instanceof Error ? e.message : 'upload failed'}`);
        } finally {
          setUploading((n) => n - 1);
        }
      }
    },
    [upload],
  );

  const remove = useCallback((name: string) => setAttached((list) => list.filter((a) => a.name !== name)), []);
  const clear = useCallback(() => setAttached([]), []);

  const dropProps = {
    onDragOver: (event: DragEvent) => {
      if (upload && event.dataTransfer.types.includes('Files')) event.preventDefault();
    },
    onDrop: (event: DragEvent) => {
      if (!upload || event.dataTransfer.files.length === 0) return;
      event.preventDefault();
      void add([...event.dataTransfer.files]);
    },
  };

  const onPaste = (event: ClipboardEvent) => {
    const files = [...event.clipboardData.files];
    if (!upload || files.length === 0) return;
    event.preventDefault();
    void add(files);
  };

  return { attached, uploading: uploading > 0, error, add, remove, clear, dropProps, onPaste, enabled: !!upload };
}
