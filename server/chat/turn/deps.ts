/**
 * What one chat request's turn runs with, from the app and the person asking. app/api/chat/route.ts builds its
 * `TurnDeps` here and so does the turn benchmark (bench/chat.ts), so what is measured is what is served, the
 * person's access layer included.
 */

import type { LanguageModel } from 'ai';
import { personalAccess } from '../../access/personal';
import type { AccessOptions, AccessResolver } from '../../access/resolver';
import type { AppConfig } from '../../config';
import type { Database } from '../../db';
import type { Resolver } from '../../egress/address';
import { skillsForPerson } from '../../install/personal';
import type { PersonalMcp, PersonalMcpTools } from '../../mcp/people';
import { switchedOffServers } from '../../mcp/personal';
import type { McpSource } from '../../mcp/tools';
import type { ModelRegistry } from '../../model/registry';
import type { ShellMode } from '../../sandbox/config';
import { shellModeFor } from '../../sandbox/shell';
import type { SecretStore } from '../../secrets/store';
import type { SkillRegistry } from '../../skills/registry';
import type { RunningTurns } from '../running/active-turns';
import type { SkillSource } from '../skill-view';
import type { ChatStore, ChatStores } from '../store';
import type { ChatSummary } from '../wire-types';

/** What one turn runs with. Tests and the bench build it by hand; a chat request builds it with `turnDeps`. */
export interface TurnDeps {
  store: ChatStore;
  /** The app's running turns (`app.turns`): the chat's slot is claimed here, its answer recorded for a reconnect. */
  turns: RunningTurns;
  /** The chat as read when these deps were built (`turnDeps` reads it for its model); absent, the turn reads it. */
  chat?: ChatSummary | null;
  config: AppConfig;
  /** Loaded skills (the registry's current scan), with its matcher and use counts when known. */
  skills: Omit<SkillSource, 'access'>;
  /**
   * The chat's model (`ModelRegistry.choose`); `note` says why it is not the one the chat picked. `provider` absent
   * or `offline`: the offline model, which neither names chats nor summarises (a real model does both).
   */
  model: { model: LanguageModel; label: string; contextWindow?: number; note?: string; provider?: string };
  /** Who may use which skill, and how (server/access/). */
  access: AccessResolver;
  /** The person's own layer over the operator's answer (`personalAccess`): the skills they switched off. */
  personal?: AccessOptions;
  /** Store the answer as it streams (default); false only to measure what that costs (`npm run bench`). */
  incremental?: boolean;
  /** The person's shell mode (server/sandbox/shell.ts); absent: off. */
  shell?: ShellMode;
  /** Who is asking: their runs share one fair share of the server's run slots. */
  owner?: string;
  /** Tools of the MCP servers connected now (server/mcp/). */
  mcp?: McpSource;
  /** The labels of the MCP servers the person switched off for themselves (`switchedOffServers`). */
  mcpSwitchedOff?: ReadonlySet<string>;
  /**
   * What a run's way out needs beside the config (server/egress/): the stored secret values and where the egress
   * record goes. Absent: runs get no secrets from the store and their egress is not stored (the bench, tests).
   */
  egress?: {
    secrets: Pick<SecretStore, 'get'>;
    db: Database | null;
    /** How the proxy resolves names; tests map theirs to loopback (default: the system's). */
    resolve?: Resolver;
  };
}

export const isRealModel = (model: TurnDeps['model']) => model.provider !== undefined && model.provider !== 'offline';

/** The parts of the app (server/app.ts) a turn reads. */
export interface TurnApp {
  config: AppConfig;
  registry: Pick<SkillRegistry, 'current' | 'matcher' | 'matcherWith'>;
  store: ChatStores;
  turns: RunningTurns;
  models: Pick<ModelRegistry, 'choose'>;
  db: Database;
  access: AccessResolver;
  /** The MCP connections (server/mcp/manager.ts); absent: no MCP tools. */
  mcp?: McpSource['manager'];
  /** The MCP servers each person signs in to (server/mcp/people.ts); the turn takes the asking person's view. */
  mcpPeople?: Pick<PersonalMcp, 'forPerson'>;
  /** Secret values set on /admin and /settings (server/secrets/). */
  secrets?: SecretStore;
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
  const [{ skills, matcher }, chat, personal, mcpSwitchedOff, mcpPerson] = await Promise.all([
    // The shared skills and the person's own (server/install/personal.ts): nobody else's.
    skillsForPerson(app, userId),
    store.getChat(chatId),
    personalAccess(app.db, userId),
    // Read only where servers are configured: without them nothing of the turn needs it.
    app.mcp ? switchedOffServers(app.db, userId) : undefined,
    personMcp(app, userId),
  ]);
  // The chat's pick, or the default; a model that is gone answers as the offline model, with a note.
  const { choice, note } = await app.models.choose(chat?.model);
  return {
    store,
    turns: app.turns,
    chat,
    config: app.config,
    // Use counts order the catalog when skills must be left out: asked for only when a chat's catalog is built (its
    // first turn, or after the skills change), and kept by the process (`usageCounts`, db/activations.ts).
    skills: { skills, matcher, usage: () => store.usageCounts() },
    model: note ? { ...choice, note } : choice,
    access: app.access,
    personal,
    shell: shellModeFor(app.config.execution.shell, asker).mode,
    owner: userId,
    ...(app.mcp
      ? {
          mcp: { manager: app.mcp, config: app.config.mcp, ...(mcpPerson ? { person: mcpPerson } : {}) },
          mcpSwitchedOff,
        }
      : {}),
    ...(app.secrets ? { egress: { secrets: app.secrets, db: app.db } } : {}),
  };
}

/** The person's connections to the servers that sign each person in; a failure leaves those tools out, not the turn. */
async function personMcp(app: TurnApp, userId: string): Promise<PersonalMcpTools | undefined> {
  if (!app.mcp || !app.mcpPeople) return undefined;
  try {
    return await app.mcpPeople.forPerson(userId);
  } catch (error) {
    console.warn(`[skillchat] MCP servers per person: ${(error as Error).message}`);
    return undefined;
  }
}
