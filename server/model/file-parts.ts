/**
 * Which providers read a PDF sent as a file part (AI SDK `{ type: 'file', mediaType: 'application/pdf' }`): OpenAI's
 * Responses API (`input_file`) and Anthropic's Messages API (`document`). Chat Completions servers (`compatible`,
 * Ollama) mostly refuse or drop file parts, so their models get the document's text (`chat/attached-documents.ts`).
 */
import type { ModelProvider } from './registry';

const READS_PDF_FILES: ReadonlySet<string> = new Set<ModelProvider>(['openai', 'anthropic']);

export const readsPdfFiles = (provider: string | undefined): boolean =>
  provider !== undefined && READS_PDF_FILES.has(provider);
