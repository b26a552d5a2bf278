/**
 * A chat's title written by its model after the first exchange (a real model only; the offline model's chats keep
 * the title derived from their first message, `title.ts`). One short non-streaming call; any failure leaves the
 * derived title in place, and the caller stores the result only while the chat still has that title, so a name a
 * person gave is never overwritten.
 */
import { generateText, type LanguageModel } from 'ai';
import { capTitle, DERIVED_TITLE_LENGTH } from '../db/title';
import { stripHiddenText } from '../skills/load/hidden-text';

/** The title call may not hold the end of the answer's stream longer than this. */
export const TITLE_TIMEOUT_MS = 8_000;
/** What the model sees of the exchange: enough to tell what it is about, cheap to send. */
const EXCERPT_CHARS = 2_000;

export const TITLE_INSTRUCTIONS = `You name chats. Reply with a title for the conversation below: at most six words, in the language of the user's message, no quotes, no trailing punctuation, nothing else.`;

/** Hidden characters (an answer quoting a tool's or server's text) never reach the title request. */
const excerpt = (raw: string) => {
  const text = stripHiddenText(raw);
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
};

/**
 * The model's reply made fit for a sidebar: its first non-blank line, without a "Title:" label, Markdown emphasis,
 * wrapping quotes or a trailing full stop, cut like a derived title. Null when nothing is left.
 */
export function cleanGeneratedTitle(reply: string): string | null {
  // A reasoning model may think aloud first (`<think>...</think>`, as Qwen and DeepSeek do over Ollama).
  const visible = reply.replace(/<think>[\s\S]*?(<\/think>|$)/gi, '');
  const line = visible.split(/\r\n|\r|\n/).find((l) => l.trim() !== '') ?? '';
  let title = line
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^#+\s*/, '')
    .replace(/^(chat\s+)?title\s*:\s*/i, '')
    .replace(/^[*_`]+|[*_`]+$/g, '')
    .trim();
  // Quotes around the whole title (straight, curly, guillemets), possibly more than one pair.
  for (let i = 0; i < 3; i++) {
    const unquoted = title.replace(/^["'“”‘’«»„]+|["'“”‘’«»„]+$/g, '').trim();
    if (unquoted === title) break;
    title = unquoted;
  }
  title = title.replace(/(?<!\.)\.$/, '').trim();
  if (title === '') return null;
  return capTitle(title, DERIVED_TITLE_LENGTH);
}

/** Asks the chat's model for a title; throws on failure or an empty reply (the caller keeps the first-line title). */
export async function generateChatTitle(
  model: LanguageModel,
  exchange: { question: string; answer: string },
  signal?: AbortSignal,
): Promise<string> {
  const { text } = await generateText({
    model,
    instructions: TITLE_INSTRUCTIONS,
    prompt: `<user_message>\n${excerpt(exchange.question)}\n</user_message>\n\n<assistant_answer>\n${excerpt(exchange.answer)}\n</assistant_answer>`,
    // Room for a reasoning model's thinking; the title itself is a few words.
    maxOutputTokens: 200,
    maxRetries: 0,
    abortSignal: signal
      ? AbortSignal.any([signal, AbortSignal.timeout(TITLE_TIMEOUT_MS)])
      : AbortSignal.timeout(TITLE_TIMEOUT_MS),
  });
  const title = cleanGeneratedTitle(text);
  if (!title) throw new Error('The model answered an empty title');
  return title;
}

/**
 * The answer's stream, unchanged, and once it has ended well (not stopped, not failed) the chat's title from the
 * question and the answer's text. The stream closes after `save` ran (or the call failed), so the chat list the
 * browser reloads when the answer ends already has the title; a failure is only logged.
 */
export function titleAfterAnswer<CHUNK extends { type: string }>(
  answer: ReadableStream<CHUNK>,
  input: { model: LanguageModel; question: string; signal: AbortSignal; save: (title: string) => unknown },
): ReadableStream<CHUNK> {
  let text = '';
  let ended = false;
  let failed = false;
  return answer.pipeThrough(
    new TransformStream<CHUNK, CHUNK>({
      transform(chunk, controller) {
        if (chunk.type === 'text-delta') text += (chunk as { delta?: string }).delta ?? '';
        else if (chunk.type === 'finish') ended = true;
        else if (chunk.type === 'error' || chunk.type === 'abort') failed = true;
        controller.enqueue(chunk);
      },
      async flush() {
        if (!ended || failed || input.signal.aborted || text.trim() === '') return;
        try {
          await input.save(
            await generateChatTitle(input.model, { question: input.question, answer: text }, input.signal),
          );
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          console.warn(`[skillchat] no title from the model (the first line stays): ${reason.slice(0, 200)}`);
        }
      },
    }),
  );
}
