/** A model that adds up the tokens its calls report, so an eval run can say what it cost. */
import type { LanguageModelV4Usage } from '@ai-sdk/provider';
import { type LanguageModel, wrapLanguageModel } from 'ai';

const total = (usage: LanguageModelV4Usage | undefined) =>
  (usage?.inputTokens.total ?? 0) + (usage?.outputTokens.total ?? 0);

export function countedModel(model: LanguageModel): { model: LanguageModel; tokens: () => number } {
  // A model named by a string resolves through the global provider: nothing to wrap, nothing counted.
  if (typeof model === 'string') return { model, tokens: () => 0 };
  let tokens = 0;
  const wrapped = wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: 'v4',
      wrapGenerate: async ({ doGenerate }) => {
        const result = await doGenerate();
        tokens += total(result.usage);
        return result;
      },
      wrapStream: async ({ doStream }) => {
        const result = await doStream();
        const stream = result.stream.pipeThrough(
          new TransformStream({
            transform(part, controller) {
              if (part.type === 'finish') tokens += total(part.usage);
              controller.enqueue(part);
            },
          }),
        );
        return { ...result, stream };
      },
    },
  });
  return { model: wrapped, tokens: () => tokens };
}
