/** The skill chips of a chat: what the server recorded, what this session activated since, and what it has seen. */
import type { ChatActivation, ChatMessage } from '@/server/chat/wire-types';
import { TOOL_ACTIVATE } from '@/server/tools/names';
import type { ActiveSkill } from './chat-header';

/** The chat's skills: what the server recorded, plus what this session activated since (in order of first use). */
export function activeSkillsOf(activations: ChatActivation[], messages: ChatMessage[]): ActiveSkill[] {
  const skills = new Map<string, ActiveSkill>();
  for (const a of [...activations].sort((x, y) => x.firstAt - y.firstAt)) {
    skills.set(a.skillName, { name: a.skillName, how: a.lastHow, count: a.count });
  }
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const part of message.parts) {
      if (part.type === 'data-activations') {
        for (const name of part.data.names) if (!skills.has(name)) skills.set(name, { name });
      } else if (part.type === `tool-${TOOL_ACTIVATE}` && part.state === 'output-available') {
        const { name, how } = part.output;
        if (!skills.has(name)) skills.set(name, { name, how });
      }
    }
  }
  return [...skills.values()];
}

/**
 * The skills to show: skills stay active for the rest of a chat (the server keeps them, and their instructions,
 * across Regenerate), so one seen earlier in this session stays when the answer that activated it is regenerated
 * away. In order of first use; a skill's newest details win.
 */
export function keepSeenSkills(seen: ActiveSkill[], current: ActiveSkill[]): ActiveSkill[] {
  const now = new Map(current.map((s) => [s.name, s]));
  const known = new Set(seen.map((s) => s.name));
  return [...seen.map((s) => now.get(s.name) ?? s), ...current.filter((s) => !known.has(s.name))];
}
