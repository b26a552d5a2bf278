/**
 * `validate`, `read-properties` and `to-prompt`: the skills-ref CLI's commands, with its output, messages and exit
 * codes. The logic lives in server/skills/load/skills-ref.ts; this file only does what skills-ref's cli.py does around it.
 */
import {
  readProperties,
  SkillRefError,
  skillDirArgument,
  toPrompt,
  validatePath,
} from '../../server/skills/load/skills-ref';
import { type Command, commandHelp, parseArgs, requireExistingPath } from './command';

const PATH_NOTE = 'A path to a SKILL.md file stands for its folder.';

export const validateCommand: Command = {
  name: 'validate',
  args: '[OPTIONS] SKILL_PATH',
  summary: 'Validate a skill directory.',
  details: [
    'Checks that the skill has a valid SKILL.md with proper frontmatter,\ncorrect naming conventions, and required fields.',
    PATH_NOTE,
    'Exit codes:\n    0: Valid skill\n    1: Validation errors found',
  ],
  options: [],
  async run(args, io) {
    const parsed = parseArgs(args, { positionals: { names: 'SKILL_PATH', min: 1, max: 1 } }, validateCommand);
    if (parsed.help) {
      io.out(commandHelp(validateCommand));
      return 0;
    }
    const given = parsed.positionals[0]!;
    requireExistingPath(given, 'SKILL_PATH', validateCommand);
    const shown = skillDirArgument(given);
    const errors = validatePath(given);
    if (errors.length > 0) {
      io.err(`Validation failed for ${shown}:\n${errors.map((e) => `  - ${e}\n`).join('')}`);
      return 1;
    }
    io.out(`Valid skill: ${shown}\n`);
    return 0;
  },
};

export const readPropertiesCommand: Command = {
  name: 'read-properties',
  args: '[OPTIONS] SKILL_PATH',
  summary: 'Read and print skill properties as JSON.',
  details: [
    'Parses the YAML frontmatter from SKILL.md and outputs the\nproperties as JSON.',
    PATH_NOTE,
    'Exit codes:\n    0: Success\n    1: Parse error',
  ],
  options: [],
  async run(args, io) {
    const parsed = parseArgs(args, { positionals: { names: 'SKILL_PATH', min: 1, max: 1 } }, readPropertiesCommand);
    if (parsed.help) {
      io.out(commandHelp(readPropertiesCommand));
      return 0;
    }
    const given = parsed.positionals[0]!;
    requireExistingPath(given, 'SKILL_PATH', readPropertiesCommand);
    const result = readProperties(given);
    if (!result.ok) {
      io.err(`Error: ${result.error}\n`);
      return 1;
    }
    io.out(`${result.json}\n`);
    return 0;
  },
};

export const toPromptCommand: Command = {
  name: 'to-prompt',
  args: '[OPTIONS] SKILL_PATHS...',
  summary: 'Generate <available_skills> XML for agent prompts.',
  details: ['Accepts one or more skill directories.', PATH_NOTE, 'Exit codes:\n    0: Success\n    1: Error'],
  options: [],
  async run(args, io) {
    const parsed = parseArgs(
      args,
      { positionals: { names: 'SKILL_PATHS...', min: 1, max: Infinity } },
      toPromptCommand,
    );
    if (parsed.help) {
      io.out(commandHelp(toPromptCommand));
      return 0;
    }
    for (const given of parsed.positionals) requireExistingPath(given, 'SKILL_PATHS...', toPromptCommand);
    try {
      io.out(`${toPrompt(parsed.positionals)}\n`);
      return 0;
    } catch (error) {
      // Like skills-ref, only its own errors are expected; anything else is a bug and reaches the top level.
      if (!(error instanceof SkillRefError)) throw error;
      io.err(`Error: ${error.message}\n`);
      return 1;
    }
  },
};
