'use client';
/**
 * Which chat the cards below belong to (tool cards get only their call), and a counter that bumps whenever the
 * chat's files may have changed (an upload, a finished answer) so the files panel reloads.
 */
import { createContext, useContext } from 'react';

export interface ChatFiles {
  chatId: string;
  version: number;
}

export const ChatFilesContext = createContext<ChatFiles | null>(null);

export function useChatFiles(): ChatFiles | null {
  return useContext(ChatFilesContext);
}
