/**
 * A tool's input schema reaches the model provider as the MCP server sent it (`$schema`, `$defs`, `$ref`,
 * `additionalProperties`): checked in the request each provider builds (OpenAI's Responses API, Chat Completions for
 * OpenAI-compatible servers, Anthropic's Messages API), sent to a local server that keeps what it received.
 */

import { createOpenAI } from '@ai-sdk/openai';
import { type LanguageModel, streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHAPE_SCHEMA } from '../../test/mcp/elicit-server';
import { type ReplayServer, startReplayServer } from '../../test/model/replay-server';
import { anthropicModel, compatibleModel } from '../model/provider';
import { resolveMcpConfig } from './config';
import type { McpServerState } from './manager';
import { mcpTurnTools, modelInputSchema } from './tools';

let replay: ReplayServer;
beforeAll(async () => {
  // Every request is refused: only what the provider sent matters here.
  replay = await startReplayServer(() => ({ status: 400, json: { error: { message: 'recorded, not answered' } } }));
});
afterAll(() => replay.close());

const server = {
  label: 'trips',
  status: 'connected',
  tools: [
    {
      name: 'shape',
      wireName: 'mcp_trips_shape',
      description: 'Takes a point.',
      inputSchema: SHAPE_SCHEMA,
      definitionHash: 'h',
    },
  ],
} as unknown as McpServerState;

const turnTools = () =>
  mcpTurnTools(
    { manager: { connected: () => [server], call: async () => ({ content: [] }) }, config: resolveMcpConfig({}) },
    {},
  ).tools;

async function sentBody(model: LanguageModel): Promise<string> {
  const before = replay.received.length;
  const result = streamText({ model, prompt: 'hi', tools: turnTools(), maxRetries: 0, onError: () => {} });
  await result.consumeStream();
  return JSON.stringify(replay.received.slice(before).at(-1)?.body);
}

describe("a tool's input schema as the server sent it", () => {
  it('is kept; only a missing root type is added', () => {
    expect(modelInputSchema(SHAPE_SCHEMA as never)).toBe(SHAPE_SCHEMA);
    expect(modelInputSchema({ properties: {} })).toEqual({ properties: {}, type: 'object' });
  });

  it.each([
    ['OpenAI (Responses)', () => createOpenAI({ apiKey: 'k', baseURL: `${replay.origin}/v1` })('gpt-test')],
    ['OpenAI-compatible (Chat Completions)', () => compatibleModel('local', `${replay.origin}/v1`)],
    ['Anthropic (Messages)', () => anthropicModel('claude-test', 'k', `${replay.origin}/v1`)],
  ])('reaches %s with $schema, $defs and $ref', async (_name, model) => {
    const body = await sentBody(model());
    expect(body).toContain(JSON.stringify(SHAPE_SCHEMA.$schema));
    expect(body).toContain('"$defs":{"point"');
    expect(body).toContain('"$ref":"#/$defs/point"');
    expect(body).toContain('"additionalProperties":false');
  });
});
