/**
 * The server's own answer to a bare `/name` (or `/a /b`), or to a refused one: an activation card and a line of text
 * per skill, with no model call. The person asked for the skill, not for a reply.
 */
import { randomUUID } from 'node:crypto';
import type { UIMessageStreamWriter } from 'ai';
import { activateSkill, type SkillToolContext } from '../../tools';
import { TOOL_ACTIVATE } from '../../tools/names';
import type { ChatMessage } from '../wire-types';
import type { Answer, Invocation } from './context';

export function writeText(writer: UIMessageStreamWriter<ChatMessage>, text: string) {
  const id = randomUUID();
  writer.write({ type: 'text-start', id });
  writer.write({ type: 'text-delta', id, delta: text });
  writer.write({ type: 'text-end', id });
}

export async function answerInvocation(
  writer: UIMessageStreamWriter<ChatMessage>,
  input: { answer: Answer; invocation: Invocation; tools: SkillToolContext },
) {
  const { answer, invocation, tools } = input;
  writer.write({ type: 'start', messageId: answer.id, messageMetadata: answer.metadata });
  for (const name of invocation.names) {
    const toolCallId = `explicit-${randomUUID()}`;
    writer.write({ type: 'tool-input-available', toolCallId, toolName: TOOL_ACTIVATE, input: { name } });
    // The refusal was decided once, with the invocation (context.ts).
    const refused = invocation.refusals.get(name);
    if (refused) {
      writer.write({ type: 'tool-output-error', toolCallId, errorText: refused });
      break;
    }
    try {
      const output = await activateSkill(tools, name, 'explicit');
      writer.write({ type: 'tool-output-available', toolCallId, output });
      writeText(
        writer,
        output.alreadyActive
          ? `**${output.name}** is already active in this chat; its instructions still apply.`
          : `**${output.name}** is active. Its instructions apply to the rest of this chat.`,
      );
    } catch (error) {
      writer.write({ type: 'tool-output-error', toolCallId, errorText: (error as Error).message });
      break;
    }
  }
  writer.write({ type: 'finish' });
}
