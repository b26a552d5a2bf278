/**
 * The client command the conformance suite runs for each client scenario (`conformance client --command`): skillchat's
 * own MCP client, `createMcpManager` with the server entry an operator would write (`{ url }`, read by
 * `resolveMcpConfig`), after the #33 hooks (hooks.ts). It does what the product does with a server: connect
 * (initialize or the 2026 discovery, then tools/list), call the tools, and list and load served skills through
 * `createServedSkills` (server/mcp/skills.ts), the registry's source of them.
 *
 * The suite runs it as `<command> <server-url>`, with `MCP_CONFORMANCE_SCENARIO` and, for some scenarios,
 * `MCP_CONFORMANCE_CONTEXT` (JSON) in the environment; conformance.test.ts bundles it first, and by hand
 * `--command "npx tsx test/conformance/client-driver.ts"` works too (slower to start). Exits 1 with the reason when
 * the connection fails or a call is refused.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveMcpConfig } from '../../server/mcp/config';
import { acceptWithDefaults } from '../../server/mcp/elicitation';
import { createMcpManager, type McpManager, type McpTool } from '../../server/mcp/manager';
import { connectWithHeadlessOAuth, HeadlessOAuthProvider } from '../../server/mcp/oauth-headless';
import { createServedSkills } from '../../server/mcp/skills';
import { type ClientSetup, hooks, type ScenarioRun } from './hooks';

const LABEL = 'suite';
// Generous: the suite starts every client scenario at once, so on a busy machine a scenario server may answer late.
// A real failure does not wait for it (a refused connection, a 401, an error answer end the attempt at once).
const TIMEOUT_MS = 110_000;

interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * The calls a scenario expects when its server does not say (`context.toolCalls`): by default every tool, no
 * arguments. `json-schema-2020-12-preservation` asks for the focal tool's input schema back: the one skillchat keeps
 * for the model (`McpTool.inputSchema`), so the check sees what the model would be given.
 */
const CALLS: Record<string, (tools: McpTool[]) => ToolCall[]> = {
  tools_call: () => [{ name: 'add_numbers', arguments: { a: 2, b: 3 } }],
  'json-schema-2020-12-preservation': (tools) => [
    {
      name: 'json_schema_echo',
      arguments: { schema: tools.find((t) => t.name === 'json_schema_2020_12_tool')?.inputSchema ?? {} },
    },
  ],
};

/** Scenarios where no served skill is loaded: a skill's files are read when a turn activates it, not on listing. */
const LIST_ONLY = new Set(['sep-2640-client-no-prefetch']);

function scenarioRun(): ScenarioRun {
  const serverUrl = process.argv.at(-1) ?? '';
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  return { scenario, serverUrl, context: raw ? (JSON.parse(raw) as Record<string, unknown>) : {} };
}

/** Resolves once the server is connected; rejects with the manager's reason at its first failure. */
function connected(manager: McpManager): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const state = manager.list().find((s) => s.label === LABEL);
      if (state?.status === 'connected') resolve();
      else if (state?.status === 'failed') reject(new Error(state.reason ?? 'failed'));
    };
    manager.subscribe(check);
    check();
  });
}

/**
 * An `auth/*` scenario: the person's sign-in the product does for a server with `auth.kind: "oauth"` (the SDK's
 * client auth: discovery, registration or a pre-registered client, PKCE, scopes, refresh), headless
 * (server/mcp/oauth-headless.ts: the suite's authorization server approves at once), then the tools called, each
 * request approved again when the server asks for more scope or its authorization server changed.
 */
async function authScenario(run: ScenarioRun): Promise<number> {
  const { client_id: clientId, client_secret: clientSecret } = run.context as Record<string, string | undefined>;
  const provider = new HeadlessOAuthProvider(
    clientId ? { client: { client_id: clientId, ...(clientSecret ? { client_secret: clientSecret } : {}) } } : {},
  );
  let failures = 0;
  // As the product's client for a person (people.ts): the 2026 discovery when the server speaks it, else initialize.
  const clientOptions = { versionNegotiation: { mode: 'auto' as const } };
  const connection = await connectWithHeadlessOAuth(run.serverUrl, {
    provider,
    clientOptions,
    timeoutMs: TIMEOUT_MS,
  }).catch((error: unknown) => {
    console.error(`connect: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  });
  if (!connection) return 1;
  // Each request may need another approval: the first sign-in, a step-up to more scope, a moved authorization server.
  const { client, authorized } = connection;
  try {
    const limits = { timeout: TIMEOUT_MS };
    const { tools } = await authorized(() => client.listTools(undefined, limits));
    for (const tool of tools) {
      try {
        const result = await authorized(() => client.callTool({ name: tool.name, arguments: {} }, limits));
        console.log(`${tool.name}: ${JSON.stringify(result.content ?? result)}`.slice(0, 500));
      } catch (error) {
        failures++;
        console.error(`${tool.name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  } finally {
    await client.close();
  }
  return failures === 0 ? 0 : 1;
}

async function main(): Promise<number> {
  const run = scenarioRun();
  if (run.scenario.startsWith('auth/')) return authScenario(run);
  let setup: ClientSetup = {
    config: resolveMcpConfig({
      mcpServers: { [LABEL]: { url: run.serverUrl } },
      mcp: { connectTimeoutMs: TIMEOUT_MS },
    }),
    options: { env: process.env, appDir: process.cwd(), backoff: { firstMs: 60_000, maxMs: 60_000 } },
  };
  if (hooks.auth) setup = await hooks.auth(setup, run);
  if (hooks.elicitation) setup = await hooks.elicitation(setup, run);

  const manager = createMcpManager(setup.config, setup.options);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-conformance-client-'));
  const served = createServedSkills(manager, { dir, limits: { hiddenText: 'warn' }, timeoutMs: TIMEOUT_MS });
  let failures = 0;
  const fail = (what: string, error: unknown) => {
    failures++;
    console.error(`${what}: ${error instanceof Error ? error.message : String(error)}`);
  };
  try {
    manager.start();
    await connected(manager);
    const state = manager.list().find((s) => s.label === LABEL)!;
    const given = run.context.toolCalls as ToolCall[] | undefined;
    const calls =
      given ?? CALLS[run.scenario]?.(state.tools) ?? state.tools.map((t) => ({ name: t.name, arguments: {} }));
    for (const call of calls) {
      try {
        // A server's questions are answered as a person accepting the form's defaults would (elicitation.ts).
        const result = await manager.call(LABEL, call.name, call.arguments, {
          timeoutMs: TIMEOUT_MS,
          elicit: async (params) => acceptWithDefaults(params),
        });
        console.log(`${call.name}: ${JSON.stringify(result.content ?? result)}`.slice(0, 500));
      } catch (error) {
        fail(call.name, error);
      }
    }
    // Served skills: listed as the registry lists them, then each one loaded as a turn that activates it and runs
    // its scripts does (SKILL.md, then every file).
    await served.refresh(LABEL);
    for (const skill of LIST_ONLY.has(run.scenario) ? [] : served.snapshot().skills) {
      const files = skill.origin?.files;
      if (!files) continue;
      const manifest = await files.fetch('SKILL.md');
      if (!manifest.ok) fail(`${skill.name} SKILL.md`, manifest.error);
      else {
        const all = await files.fetchAll();
        if (!all.ok) fail(`${skill.name} files`, all.error);
      }
    }
    for (const d of served.snapshot().diagnostics) console.error(`${d.severity}: ${d.message}`);
  } catch (error) {
    fail('connect', error);
  } finally {
    served.close();
    await manager.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return failures === 0 ? 0 : 1;
}

process.exit(await main());
