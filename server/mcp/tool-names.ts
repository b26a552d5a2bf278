/**
 * Wire names of an MCP server's tools: `mcp_<label>_<tool>` (server/tools/names.ts), which must match
 * `^[a-zA-Z0-9_-]{1,64}$` for OpenAI. A tool name that already fits is used as it is. Otherwise (a dot, a space,
 * non-ASCII, too long) the unsafe characters become `_`, the name is cut to fit, and `-` plus six hex digits of a
 * SHA-256 of the real name are appended: stable across restarts and list changes, and two names that sanitise alike
 * get different suffixes. A plain name that still meets another's wire name (a server naming tools `a.b` and
 * `a_b-<its hash>` on purpose) is left out, with the reason on /admin.
 */
import { createHash } from 'node:crypto';
import { MCP_TOOL_PREFIX } from '../tools/names';

const MAX_WIRE = 64;
const SAFE = /^[a-zA-Z0-9_-]+$/;

export interface NamedTool {
  /** The tool's own name, as the server lists it and is called with. */
  name: string;
  wireName: string;
}

export interface Naming {
  named: NamedTool[];
  /** Tools left out, with why. */
  skipped: { name: string; reason: string }[];
}

export function mcpWireName(label: string, tool: string): string {
  const prefix = `${MCP_TOOL_PREFIX}${label}_`;
  if (tool.length > 0 && SAFE.test(tool) && prefix.length + tool.length <= MAX_WIRE) return prefix + tool;
  const suffix = `-${createHash('sha256').update(tool).digest('hex').slice(0, 6)}`;
  const room = MAX_WIRE - prefix.length - suffix.length;
  return prefix + tool.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, Math.max(room, 0)) + suffix;
}

/** Wire names for one server's tools, in the server's order. */
export function nameTools(label: string, tools: readonly string[]): Naming {
  const named: NamedTool[] = [];
  const skipped: Naming['skipped'] = [];
  const taken = new Map<string, string>();
  for (const name of tools) {
    const wireName = mcpWireName(label, name);
    const holder = taken.get(wireName);
    if (holder !== undefined) {
      skipped.push({ name, reason: `its tool name ${wireName} is already "${holder}"'s` });
      continue;
    }
    taken.set(wireName, name);
    named.push({ name, wireName });
  }
  return { named, skipped };
}
