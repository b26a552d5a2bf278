/**
 * Context windows (tokens) of known model families, for the catalog budget (`skills/budget.ts`: a share of the
 * window, or its fixed fallback when the window is unknown). Published figures, matched by model id prefix, first
 * match wins, so longer prefixes come first. Ollama models are not here: the registry asks Ollama for each one's
 * own `context_length`. A model outside the table gets none, and the budget's fallback applies.
 */
export const KNOWN_CONTEXT_WINDOWS: readonly (readonly [prefix: string, tokens: number])[] = [
  // OpenAI
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['gpt-5', 400_000],
  ['o4-mini', 200_000],
  ['o3', 200_000],
  // Anthropic: every Claude 3.x/4.x model has 200k without the 1M beta header (which we do not send).
  ['claude-', 200_000],
  // Open-weight families as served by vLLM, LM Studio or llama.cpp under their usual names.
  ['llama3.1', 131_072],
  ['llama3.2', 131_072],
  ['llama3.3', 131_072],
  ['qwen2.5', 32_768],
  ['qwen3', 40_960],
  ['gpt-oss', 131_072],
  ['mistral-small', 32_768],
];

/**
 * The window of `modelId`, from the table. Compatible endpoints prefix ids with an organisation
 * (`meta-llama/Llama-3.1-8B`), so the part after the last `/` is matched too, case-insensitively.
 */
export function knownContextWindow(modelId: string): number | undefined {
  const id = modelId.toLowerCase();
  // `Llama-3.1-8B-Instruct` and `llama3.1:8b` name the same family.
  const bare = id.slice(id.lastIndexOf('/') + 1).replace(/^llama-(?=\d)/, 'llama');
  for (const [prefix, tokens] of KNOWN_CONTEXT_WINDOWS) {
    if (id.startsWith(prefix) || bare.startsWith(prefix)) return tokens;
  }
  return undefined;
}
