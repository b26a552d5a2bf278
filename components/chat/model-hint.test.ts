/**
 * How to add a model, as the picker and the offline model's answer say it: both name the ways the model registry
 * really reads (OpenAI, Anthropic, a compatible endpoint, Ollama), and nothing it does not read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { composeAnswer } from '@/server/offline-model/answer';
import type { PromptView } from '@/server/offline-model/prompt-reader';
import { ADD_MODEL_HINTS, needsModelHint } from './model-hint';

const registrySource = fs.readFileSync(path.resolve(import.meta.dirname, '../../server/model/registry.ts'), 'utf8');
const PROVIDER_KEYS = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_BASE_URL'];

/** The offline model's answer to a message that matched no skill, where it adds its note. */
function offlineAnswer(): string {
  const view: PromptView = {
    system: '',
    catalog: [{ name: 'pdf', description: 'Read PDF files' }],
    activatableNames: ['pdf'],
    offeredTools: new Set(),
    explicitSkill: null,
    activeNames: [],
    userText: 'hello',
    workspaceFiles: [],
    noSandbox: null,
    documents: [],
    turn: [],
    turnNumber: 1,
    activations: new Map(),
  } satisfies PromptView;
  return composeAnswer({ view, target: null, suggestions: [], canActivate: true });
}

function namedVariables(text: string): string[] {
  return [...new Set(text.match(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g) ?? [])];
}

describe('how to add a model', () => {
  it('the picker says it only when the offline model is all there is', () => {
    expect(needsModelHint([{ provider: 'offline' }])).toBe(true);
    expect(needsModelHint([{ provider: 'offline' }, { provider: 'ollama' }])).toBe(false);
  });

  it.each([
    ['the picker', ADD_MODEL_HINTS.join(' ')],
    ['the offline answer', offlineAnswer()],
  ])('%s names OpenAI, Anthropic, a compatible endpoint and Ollama, as the registry reads them', (_where, text) => {
    for (const key of PROVIDER_KEYS) expect(text).toContain(key);
    expect(text).toMatch(/Ollama/);
    for (const variable of namedVariables(text)) expect(registrySource).toContain(`env.${variable}`);
  });
});
