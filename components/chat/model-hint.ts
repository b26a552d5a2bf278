/**
 * What the model picker says when the built-in offline model is all there is: how to add a real one. Named here,
 * not in the server's registry, because client components import nothing from `server/` but types.
 */

/** The lines, shown as disabled options under the offline model. Every variable named is one the registry reads. */
export const ADD_MODEL_HINTS = [
  'Add one on /admin (Models): no restart',
  'or set OPENAI_API_KEY or ANTHROPIC_API_KEY and restart',
  'or OPENAI_BASE_URL for a compatible endpoint',
  'or run Ollama on this computer',
] as const;

/** Whether the picker should say how to add a model: nothing but the offline model is listed. */
export function needsModelHint(models: readonly { provider: string }[]): boolean {
  return models.every((m) => m.provider === 'offline');
}
