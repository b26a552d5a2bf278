/** What a turn needs in tests that run it with the offline model and no skills, over a given store. */
import path from 'node:path';
import { createAccessResolver } from '../server/access/resolver';
import type { ChatStore } from '../server/chat/store';
import type { TurnDeps } from '../server/chat/turn';
import { loadConfig } from '../server/config';
import { createOfflineModel } from '../server/model/offline-model';

const appDir = path.resolve(import.meta.dirname, '..');

/** `dir` holds the config's database path and home; `chunkDelayMs` paces the answer (40 ms: a few seconds). */
export function offlineTurnDeps(store: ChatStore, dir: string, chunkDelayMs: number): TurnDeps {
  const config = loadConfig({ appDir, env: { SKILLCHAT_DB: path.join(dir, 'chat.db') }, home: path.join(dir, 'home') });
  return {
    store,
    config,
    skills: { skills: [] },
    model: { model: createOfflineModel({ chunkDelayMs }), label: 'offline' },
    access: createAccessResolver(config),
  };
}
