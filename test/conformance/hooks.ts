/**
 * The seams where #33's OAuth and elicitation plug into the conformance client (client-driver.ts). Each hook gets
 * the setup the driver would start skillchat's MCP client with (the manager's config and options, as
 * `server/app.ts` builds them) and returns the setup to use: the OAuth part adds its headless sign-in (an
 * `OAuthClientProvider` that follows the authorization URL itself and keeps tokens in memory), the elicitation part
 * its headless answer (accept with the requested schema's defaults applied). Both are applied on every scenario, as
 * both are on in the product. Until they exist, the scenarios that need them are `pending` in expected.ts.
 */
import type { McpConfig } from '../../server/mcp/config';
import type { McpManagerOptions } from '../../server/mcp/manager';

export interface ClientSetup {
  config: McpConfig;
  options: McpManagerOptions;
}

export interface ScenarioRun {
  /** `MCP_CONFORMANCE_SCENARIO`, e.g. `auth/metadata-default`. */
  scenario: string;
  /** The scenario server's URL (the driver's last argument). */
  serverUrl: string;
  /** `MCP_CONFORMANCE_CONTEXT`: scenario data such as a pre-registered client's id and secret; `{}` when none. */
  context: Record<string, unknown>;
}

export type SetupHook = (setup: ClientSetup, run: ScenarioRun) => ClientSetup | Promise<ClientSetup>;

export interface ConformanceHooks {
  /** OAuth per person (#33): a headless authorization code flow with PKCE through the SDK's client auth. */
  auth?: SetupHook;
  /** Elicitation (#33): answers a server's `elicitation/create` without a person. */
  elicitation?: SetupHook;
}

export const hooks: ConformanceHooks = {};
