/**
 * A run's package installs (`runtime.installs`): with `allow`, a run in a chat gets the chat's layer
 * (`<workspaces>/<chat>/layer`, read-write at /opt/skillchat-layer) and the package indexes (toolchain/
 * package-indexes.ts), which its proxy lets it read (egress/grants.ts, the pseudo-skill `(installs)`). With `off`,
 * or without a chat, nothing: pip and npm stay offline and fail at once.
 */
import fs from 'node:fs';
import { indexAccess, packageIndexes } from '../toolchain/package-indexes';
import { layerDir } from '../workspace/folders';
import type { ExecutionConfig } from './config';
import type { SandboxInstalls } from './port';

export async function runInstalls(
  config: Pick<ExecutionConfig, 'runtime' | 'workspace'>,
  chatId: string | undefined,
): Promise<SandboxInstalls | undefined> {
  if (config.runtime.installs !== 'allow' || !chatId) return undefined;
  const indexes = await packageIndexes(config.runtime);
  const layer = layerDir(config.workspace.dir, chatId);
  await fs.promises.mkdir(/*turbopackIgnore: true*/ layer, { recursive: true, mode: 0o775 });
  return { layer, pip: indexes.pip, npm: indexes.npm, folders: indexAccess(indexes).folders };
}

/** The `host:port` patterns runs may read packages from, or none when installs are off. */
export async function installHosts(config: Pick<ExecutionConfig, 'runtime'>): Promise<string[]> {
  if (config.runtime.installs !== 'allow') return [];
  return indexAccess(await packageIndexes(config.runtime)).hosts;
}
