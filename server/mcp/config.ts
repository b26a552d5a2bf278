/**
 * MCP servers the operator configured (`mcpServers` in skillchat.config.json, in the shape Claude Desktop, Cursor
 * and Claude Code use) and the settings of the MCP client (`mcp`). zod/mini like the rest of the config
 * (server/config-parts.ts); `server/config.ts` only plugs the schemas in.
 *
 * ```json
 * { "mcpServers": {
 *     "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv/docs"] },
 // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own `${env:NAME}` syntax
 *     "github": { "url": "https://api.example.com/mcp", "headers": { "Authorization": "Bearer ${env:GITHUB_TOKEN}" } },
 *     "notion": { "url": "https://mcp.notion.com/mcp", "auth": { "kind": "oauth" } } },
 *   "mcp": { "timeoutMs": 30000, "rules": { "github/*": "ask", "github/delete_*": "deny" } } }
 * ```
 *
 * `${env:NAME}` in an `env` or `headers` value is replaced by the server's environment variable NAME when the
 * connection is made (never stored resolved, never shown on /admin); a variable that is not set fails that server
 * only, with the reason.
 */
import * as z from 'zod/mini';
import { count, text } from '../config-parts';

/** A label becomes part of tool names (`mcp_<label>_<tool>`), so it has no `_`, dot or capital. */
export const MCP_LABEL = /^[a-z0-9][a-z0-9-]{0,30}$/;
const LABEL_RULE = 'must be 1-31 lowercase letters, digits or hyphens, starting with a letter or digit';

/** `${env:NAME}`: the whole syntax of a secret reference. */
export const ENV_REFERENCE = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

const PERMISSIONS = ['allow', 'ask', 'deny'] as const;

const envName = z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'));

/** A value that may hold `${env:NAME}` references; any other `${` is a typo worth an error. */
const withReferences = () =>
  z.string().check(
    z.refine((value) => !value.replace(ENV_REFERENCE, '').includes('${'), {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own `${env:NAME}` syntax
      message: 'a secret is written as ${env:NAME} (NAME: letters, digits and _)',
    }),
  );

const serverSchema = z
  .strictObject({
    /** Claude Code writes the transport; `sse` (the old HTTP+SSE transport) is not spoken here. */
    type: z.optional(z.enum(['stdio', 'http', 'streamable-http'])),
    /** stdio: the program to start, its arguments, its environment (only this, plus PATH and HOME) and folder. */
    command: z.optional(text()),
    args: z.optional(z.array(z.string())),
    env: z.optional(z.record(envName, withReferences())),
    cwd: z.optional(text()),
    /** Streamable HTTP: the endpoint and the headers sent with every request. */
    url: z.optional(
      z
        .string()
        .check(z.refine((u) => /^https?:\/\/[^\s]+$/.test(u) && URL.canParse(u), 'must be an http:// or https:// URL')),
    ),
    headers: z.optional(z.record(text(), withReferences())),
    /**
     * Streamable HTTP: each person signs in to this server themselves (OAuth 2.1 through the MCP SDK, server/mcp/
     * oauth-provider.ts), so there is no operator-wide connection. `clientId` (with `clientSecret` for a confidential
     * client) when the operator registered skillchat with the authorization server; `clientMetadataUrl` for a client
     * ID metadata document; neither: dynamic client registration. `scopes` when the server's metadata says none.
     */
    auth: z.optional(
      z.strictObject({
        kind: z.literal('oauth'),
        clientId: z.optional(text()),
        clientSecret: z.optional(withReferences()),
        clientMetadataUrl: z.optional(
          z
            .string()
            .check(z.refine((u) => /^https:\/\/[^\s/]+\/[^\s]+$/.test(u), 'must be an https:// URL with a path')),
        ),
        scopes: z.optional(z.array(text())),
      }),
    ),
    /** Listed on /admin, never started. */
    disabled: z.optional(z.boolean()),
  })
  .check(
    z.refine((s) => (s.command === undefined) !== (s.url === undefined), {
      message: 'give either "command" (a stdio server) or "url" (a Streamable HTTP server)',
    }),
    z.refine((s) => s.command !== undefined || (s.args === undefined && s.env === undefined && s.cwd === undefined), {
      message: '"args", "env" and "cwd" belong to a stdio server (one with "command")',
    }),
    z.refine((s) => s.url !== undefined || s.headers === undefined, {
      message: '"headers" belong to an HTTP server (one with "url")',
    }),
    z.refine((s) => s.url !== undefined || s.auth === undefined, {
      message: '"auth" belongs to an HTTP server (one with "url")',
    }),
    z.refine((s) => s.auth?.clientSecret === undefined || s.auth.clientId !== undefined, {
      message: '"auth.clientSecret" goes with "auth.clientId"',
    }),
    z.refine((s) => s.type === undefined || (s.type === 'stdio') === (s.command !== undefined), {
      message: '"type" does not match: "stdio" goes with "command", "http" with "url"',
    }),
  );

export type McpServerEntry = z.infer<typeof serverSchema>;
export type McpOAuthSettings = NonNullable<McpServerEntry['auth']>;

// Checked on the whole record: zod's own error for a bad record key does not say what a key must be.
export const mcpServersSchema = z.record(z.string(), serverSchema).check(
  z.refine((servers) => Object.keys(servers).every((label) => MCP_LABEL.test(label)), {
    message: `each server label ${LABEL_RULE} (it becomes part of tool names)`,
  }),
);

export const mcpSettingsSchema = z.strictObject({
  /** How long one tool call may take before it ends as a tool error. */
  timeoutMs: count(30_000),
  /** How long connecting (start, initialize, the tool list) may take before the server counts as failed. */
  connectTimeoutMs: count(10_000),
  /** Text of one tool result the model is sent; more is cut with a notice. */
  maxOutputBytes: count(64 * 1024),
  /**
   * `server/tool` globs to a permission (`"github/*": "ask"`, `"github/delete_*": "deny"`); the most specific wins
   * (server/access/globs.ts). A pattern without `/` names a whole server. Without a rule a tool is allowed: the
   * operator configured its server.
   */
  rules: z._default(z.record(text(), z.enum(PERMISSIONS)), {}),
});

export interface McpConfig {
  servers: Record<string, McpServerEntry>;
  timeoutMs: number;
  connectTimeoutMs: number;
  maxOutputBytes: number;
  rules: Record<string, (typeof PERMISSIONS)[number]>;
}

export function resolveMcpConfig(file: {
  mcpServers?: Record<string, McpServerEntry>;
  mcp?: Partial<z.infer<typeof mcpSettingsSchema>>;
}): McpConfig {
  return { ...mcpSettingsSchema.parse({}), ...file.mcp, servers: file.mcpServers ?? {} };
}

/** The environment variables a value names (`${env:NAME}`). */
export function referencedVariables(value: string): string[] {
  return [...value.matchAll(ENV_REFERENCE)].map((m) => m[1]!);
}

/** Replaces each `${env:NAME}`; a variable that is not set is an error naming it (never its neighbours' values). */
export function resolveReferences(
  values: Record<string, string> | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values ?? {})) {
    out[key] = value.replace(ENV_REFERENCE, (_, name: string) => {
      const found = env[name];
      if (found === undefined) throw new Error(`the environment variable ${name} (named by ${key}) is not set`);
      return found;
    });
  }
  return out;
}
