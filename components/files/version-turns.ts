/**
 * Which turn of the chat wrote each kept version of a file: a run's result names its files' versions
 * (`files[].version`), and the turn is the number of the person's message the answer follows. Only from messages
 * that start at the chat's beginning; otherwise the viewer labels versions by time.
 */
import type { ChatMessage } from '@/server/chat/wire-types';

export function versionTurns(messages: readonly ChatMessage[]): Map<string, number> {
  const turns = new Map<string, number>();
  let turn = 0;
  for (const message of messages) {
    if (message.role === 'user') turn++;
    if (message.role !== 'assistant') continue;
    for (const part of message.parts) {
      if (!part.type.startsWith('tool-') || !('output' in part)) continue;
      const files = (part.output as { files?: unknown } | undefined)?.files;
      if (!Array.isArray(files)) continue;
      for (const file of files) {
        const version = (file as { version?: unknown } | null)?.version;
        if (typeof version === 'string') turns.set(version, Math.max(turn, 1));
      }
    }
  }
  return turns;
}
