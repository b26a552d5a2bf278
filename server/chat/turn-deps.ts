/**
 * What one chat request's turn runs with, from the app and the person asking. app/api/chat/route.ts builds its
 * `TurnDeps` here and so does the turn benchmark (bench/chat.ts), so what is measured is what is served: the bench
 * once timed `runChatTurn` without the person's access layer, a path no request takes.
 */
import { personalAccess } from '../access/personal';
import type { AccessResolver } from '../access/resolver';
import type { AppConfig } from '../config';
import type { Database } from '../db';
import type { McpSource } from '../mcp/tools';
import type { ModelRegistry } from '../model/registry';
import { shellModeFor } from '../sandbox/shell';
import type { SkillRegistry } from '../skills/registry';
import type { ChatStores } from './store';
import type { TurnDeps } from './turn';

/** The parts of the app (server/app.ts) a turn reads. */
export interface TurnApp {
  config: AppConfig;
  registry: Pick<SkillRegistry, 'current' | 'matcher'>;
  store: ChatStores;
  models: Pick<ModelRegistry, 'choose'>;
  db: Database;
  access: AccessResolver;
  /** The MCP connections (server/mcp/manager.ts); absent: no MCP tools. */
  mcp?: McpSource['manager'];
}

/** How the person reaches the server: decides their shell mode's default (server/sandbox/shell.ts). */
export interface Asker {
  exposed: boolean;
  email?: string | null;
}

export async function turnDeps(
  app: TurnApp,
  userId: string,
  chatId: string,
  asker: Asker = { exposed: false },
): Promise<TurnDeps> {
  const store = app.store.forUser(userId);
  const [{ skills }, matcher, chat, personal] = await Promise.all([
    app.registry.current(),
    app.registry.matcher(),
    store.getChat(chatId),
    personalAccess(app.db, userId),
  ]);
  // The chat's pick, or the default; a model that is gone answers as the offline model, with a note.
  const { choice, note } = await app.models.choose(chat?.model);
  return {
    store,
    config: app.config,
    // Use counts order the catalog when skills must be left out: read only when a chat's catalog is built (its
    // first turn, or after the skills change), not at every turn (a GROUP BY over every chat's activations).
    skills: { skills, matcher, usage: () => store.usageCounts() },
    model: note ? { ...choice, note } : choice,
    access: app.access,
    personal,
    shell: shellModeFor(app.config.scripts.shell, asker).mode,
    owner: userId,
    ...(app.mcp ? { mcp: { manager: app.mcp, config: app.config.mcp } } : {}),
  };
}
