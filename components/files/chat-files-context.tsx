'use client';
/**
 * Which chat the cards below belong to (tool cards get only their call), a counter that bumps whenever the chat's
 * files may have changed (an upload, a finished answer), and the files as last listed (the panel, the chips' text
 * states), and the way to open one in the viewer.
 */
import { createContext, useContext } from 'react';
import type { WorkspaceFileView } from '@/server/chat/wire-types';

export interface ChatFiles {
  chatId: string;
  version: number;
  files: WorkspaceFileView[];
  /** Opens a file (its path) in the viewer beside the chat. */
  openFile: (name: string) => void;
}

export const ChatFilesContext = createContext<ChatFiles | null>(null);

export function useChatFiles(): ChatFiles | null {
  return useContext(ChatFilesContext);
}
