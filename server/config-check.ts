/**
 * Start-up's configuration check, shared by `npm start` (bin/start.ts) and the server itself (instrumentation.ts),
 * so a plain `next start` with a broken config file stops with the same clear message instead of serving errors.
 */
import { ConfigError, loadConfig } from './config';

/** Loads the configuration; on a `ConfigError` prints what is wrong and exits with status 1. */
export function refuseInvalidConfig(
  load: () => unknown = loadConfig,
  exit: (code: number) => never = process.exit,
  log: (line: string) => void = console.error,
): void {
  try {
    load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    log(`skillchat: configuration error: ${error.message}`);
    log('skillchat: not starting; fix the file (or SKILLCHAT_CONFIG) and start again.');
    exit(1);
  }
}
