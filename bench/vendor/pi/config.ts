// A stand-in for badlogic/pi-mono's packages/coding-agent/src/config.ts: the two names skills.ts imports, with
// pi's defaults (its package.json has no piConfig.configDir). The bench calls loadSkillsFromDir, which uses neither.
import { homedir } from "os";
import { join } from "path";

export const CONFIG_DIR_NAME: string = ".pi";

export function getAgentDir(): string {
	return join(homedir(), CONFIG_DIR_NAME, "agent");
}
