/**
 * Descriptions written as instructions to the model. A description goes into every chat's catalog before the person
 * has chosen anything, so "SYSTEM OVERRIDE: ignore all previous instructions" there is prompt injection aimed at
 * every conversation. The catalog keeps it as data (JSON) and the policy tells the model skill text is untrusted;
 * this check makes it visible to the operator: an `instruction-like-description` warning on the skill (shown on
 * /admin, the skill's page, an install's result and the approval card). The skill still loads: the patterns are a
 * tripwire, not a filter, and a determined author can phrase around any list.
 *
 * The set is small on purpose, each pattern aimed at one thing no honest description needs to say:
 * - override: telling the model to ignore, disregard, forget or bypass previous, system or all instructions/rules;
 * - role label: speaking as another party, `SYSTEM:`, `System override:`, `New instructions:`, "you are now ...";
 * - markup: chat-template tokens (`<|im_start|>`, `[INST]`) and the tags that delimit our prompt's blocks (not a
 *   bare `<system>`: real descriptions use it as a placeholder);
 * - catalog grab: "always activate this skill for every request" / "before any other skill";
 * - secrecy: "do not tell the user", "without telling the user", "reveal your system prompt" (not "exfiltration":
 *   security skills describe detecting it).
 * Checked against every description in .skills/, server/skills/fixtures and the bench corpus (the public skills in
 * fixtures/match/public-skills.json and the generated ones), none flagged (instruction-like.test.ts), and once, by
 * hand, against 15,126 distinct descriptions from two public skill collections (Nov 2026): none flagged.
 */
import type { Diagnostic } from '../types';

interface Pattern {
  kind: string;
  re: RegExp;
  /**
   * Words one of which every match contains, lowercase: a description without any is not tried against `re`. Ten
   * thousand descriptions tried against the five patterns at every position were a sixth of loading the skills.
   */
  words: readonly string[];
}

const VERB = '(?:ignore|disregard|forget|override|overrule|bypass)';
const NOUN =
  '(?:instructions?|prompts?|rules|guidelines|directives|directions|polic(?:y|ies)|guardrails|constraints|context)';
const QUALIFIER = '(?:previous|prior|above|earlier|preceding|original|initial|system|developer|safety|former)';

const PATTERNS: readonly Pattern[] = [
  {
    kind: 'tells the model to ignore its instructions',
    re: new RegExp(
      `\\b${VERB}\\s+(?:(?:all|any|every|the|your|of|these|those|my)\\s+){0,3}${QUALIFIER}\\s+${NOUN}\\b|\\b${VERB}\\s+(?:all|your)\\s+(?:(?:the|of|your)\\s+)?${NOUN}\\b`,
      'i',
    ),
    words: ['ignor', 'disregard', 'forget', 'overr', 'bypass'],
  },
  {
    kind: 'speaks as the system or another party',
    re: /(?:^|[\n.!?]\s*)(?:system|assistant|developer|admin)\s*:|\b(?:system|admin(?:istrator)?|developer)\s+(?:override|prompt|message|instructions?|command|notice)\s*:|\bnew\s+instructions\s*:|\byou\s+are\s+(?:now|no\s+longer)\b/i,
    words: [':', 'you'],
  },
  {
    kind: 'contains chat-template or prompt markup',
    re: /<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id)\|>|\[\/?INST\]|<\s*\/?\s*(?:skill_content|skill_resources|available_skills|conversation_summary|system-reminder)\b/i,
    words: ['<', 'inst]'],
  },
  {
    kind: 'asks to be activated for everything',
    re: /\b(?:always|must)\s+(?:be\s+)?(?:activate[ds]?|call(?:ed)?|load(?:ed)?|invoked?|use[ds]?|run)\s+(?:this\s+skill\s+)?(?:first\s+)?(?:before\s+(?:any|every|all)\s+other|(?:for|on|with)\s+(?:every|all|each)\s+(?:single\s+)?(?:requests?|messages?|prompts?|questions?|conversations?|turns?))\b/i,
    words: ['always', 'must'],
  },
  {
    kind: 'asks the model to keep something from the person or reveal secrets',
    re: /\b(?:do\s+not|don't|never)\s+(?:tell|inform|alert|notify|mention\s+(?:this|it)\s+to)\s+the\s+user\b|\bwithout\s+(?:telling|informing|alerting|notifying)\s+the\s+user\b|\b(?:reveal|print|output|repeat|show|leak)\s+(?:me\s+)?(?:the\s+|your\s+)?(?:system\s+prompt|hidden\s+instructions|initial\s+instructions)\b/i,
    words: ['user', 'prompt', 'instructions'],
  },
];

export interface InstructionLikeFinding {
  kind: string;
  /** The matched words, shortened, for the message. */
  excerpt: string;
}

/** What in `text` reads as an instruction to the model, one finding per pattern that matched (first match each). */
export function findInstructionLikeText(text: string): InstructionLikeFinding[] {
  const found: InstructionLikeFinding[] = [];
  // Without the `u` flag, `i` matches an ASCII letter only to its other case: what a pattern matches lowercases to
  // text that holds one of its words.
  const lower = text.toLowerCase();
  for (const { kind, re, words } of PATTERNS) {
    if (!words.some((word) => lower.includes(word))) continue;
    const match = re.exec(text);
    if (!match) continue;
    const matched = match[0].trim().replace(/\s+/g, ' ');
    found.push({ kind, excerpt: matched.length > 60 ? `${matched.slice(0, 59)}…` : matched });
  }
  return found;
}

/**
 * The warning for a skill whose description (or `when_to_use`, which the catalog appends) reads as instructions to
 * the model; null when it does not. The message quotes the matched words, not the whole description.
 */
export function instructionLikeDiagnostic(fields: Record<string, string | undefined>): Diagnostic | null {
  const parts: string[] = [];
  for (const [field, text] of Object.entries(fields)) {
    if (!text) continue;
    for (const f of findInstructionLikeText(text)) parts.push(`${field} ${f.kind} ("${f.excerpt}")`);
  }
  if (parts.length === 0) return null;
  return {
    severity: 'warning',
    code: 'instruction-like-description',
    message: `Reads as instructions to the model, not a description: ${parts.join('; ')}.`,
    hint: 'Every chat sees the description in the catalog. Describe what the skill does and when to use it; put instructions in the SKILL.md body. If you did not write this skill, treat it as an attempted prompt injection.',
  };
}
