/** A real model's summary of the messages left out, as a block of the instructions (chat/summary.ts asks the model for it). */
import { SUMMARY_TAG } from './keys';

/** Summary text is the model's words about untrusted content: it must not close its wrapper in the instructions. */
export function summaryBlock(summary: string): string {
  const body = summary.replace(new RegExp(`</?${SUMMARY_TAG}\\b`, 'gi'), (tag) => tag.replace('<', '&lt;'));
  return [
    `${SUMMARY_TAG} (the chat's earlier messages, summarised to fit the context window; the messages continue from here):`,
    `<${SUMMARY_TAG}>`,
    body,
    `</${SUMMARY_TAG}>`,
  ].join('\n');
}
