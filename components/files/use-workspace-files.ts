'use client';
/**
 * The chat's files as the files list answers them, reloaded when `version` moves (an upload, a finished answer) and
 * every second while an upload's text is still being read, so its chip can say when it was.
 */
import { useEffect, useState } from 'react';
import type { WorkspaceFileView } from '@/server/chat/wire-types';
import { listFiles } from './api';

const POLL_MS = 1_000;
/** A read takes at most 30 s in the sandbox; a few slots' waits on top, then the chip stays "reading". */
const MAX_POLLS = 90;

export function useWorkspaceFiles(chatId: string | null, version: number): WorkspaceFileView[] {
  const [files, setFiles] = useState<WorkspaceFileView[]>([]);
  useEffect(() => {
    if (!chatId) return;
    void version;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let polls = 0;
    const load = () =>
      listFiles(chatId, controller.signal)
        .then((list) => {
          setFiles(list);
          if (list.some((f) => f.text?.state === 'pending') && ++polls < MAX_POLLS) timer = setTimeout(load, POLL_MS);
        })
        .catch(() => {});
    void load();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [chatId, version]);
  return chatId ? files : [];
}
