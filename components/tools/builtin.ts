/** Registers the cards that ship with the app. Imported once by the component that renders tool parts. */
import { MCP_TOOL_PREFIX, TOOL_ACTIVATE, TOOL_READ_RESOURCE, TOOL_RUN_SCRIPT, TOOL_SHELL } from '@/server/tools/names';
import { DefaultToolCard } from './default-card';
import { McpCard } from './mcp-card';
import { registerDefaultToolRenderer, registerToolRenderer, registerToolRendererForPrefix } from './registry';
import { RunScriptCard } from './script-card';
import { ShellCard } from './shell-card';
import { ActivateCard, ReadResourceCard } from './skill-cards';

registerToolRenderer(TOOL_ACTIVATE, ActivateCard);
registerToolRenderer(TOOL_READ_RESOURCE, ReadResourceCard);
registerToolRenderer(TOOL_RUN_SCRIPT, RunScriptCard);
registerToolRenderer(TOOL_SHELL, ShellCard);
registerToolRendererForPrefix(MCP_TOOL_PREFIX, McpCard);
registerDefaultToolRenderer(DefaultToolCard);
