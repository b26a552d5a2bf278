/**
 * `read-resource`: what `skills.readResource` would hand the model for a file of a skill, through the same confined
 * reader (server/skills/resources/resources.ts), so a refusal here is a refusal in the chat.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type LoadSkillOptions, loadSkill } from '../../server/skills/load/skill-file';
import { skillDirArgument } from '../../server/skills/load/skills-ref';
import { readSkillResource } from '../../server/skills/resources/resources';
import { loadAppConfig } from './app';
import { type Command, commandHelp, parseArgs, requireExistingPath, UsageError } from './command';

/**
 * The name the tool would know the skill by (frontmatter `name`, else the folder name). It only appears in
 * messages, so a folder that does not load as a skill can still be read, for debugging it.
 */
async function skillName(dir: string, limits: LoadSkillOptions['limits']): Promise<string> {
  const { skill } = await loadSkill(dir, {
    root: path.dirname(dir),
    scope: 'project',
    relDir: path.basename(dir),
    limits,
  });
  return skill?.name ?? path.basename(dir);
}

export const readResourceCommand: Command = {
  name: 'read-resource',
  args: '[OPTIONS] SKILL_DIR PATH',
  summary: 'Print a file of a skill as the skills.readResource tool returns it.',
  details: [
    'PATH is relative to SKILL_DIR (a path to its SKILL.md stands for the folder).\nPrints the content as is, then the truncation notice when the file is over\nthe limit; a binary file is described, not dumped. A path the tool refuses\n(outside the folder, absolute, "..") prints the tool\'s error and exits 1.',
  ],
  options: [['--max-bytes N', 'Bytes of content returned (default: limits.maxResourceBytes).']],
  async run(args, io) {
    const parsed = parseArgs(
      args,
      { options: ['--max-bytes'], positionals: { names: 'SKILL_DIR PATH', min: 2, max: 2 } },
      readResourceCommand,
    );
    if (parsed.help) {
      io.out(commandHelp(readResourceCommand));
      return 0;
    }
    const [givenDir, relPath] = parsed.positionals as [string, string];
    requireExistingPath(givenDir, 'SKILL_DIR', readResourceCommand);
    const dir = path.resolve(skillDirArgument(givenDir));
    if (!fs.statSync(dir).isDirectory()) {
      io.err(`Error: Not a directory: ${givenDir}\n`);
      return 1;
    }

    const config = loadAppConfig();
    let maxBytes = config.limits.maxResourceBytes;
    const maxOption = parsed.options.get('--max-bytes')?.at(-1);
    if (maxOption !== undefined) {
      maxBytes = Number(maxOption);
      if (!/^\d+$/.test(maxOption) || !Number.isSafeInteger(maxBytes) || maxBytes < 1) {
        throw new UsageError(
          `Invalid value for '--max-bytes': '${maxOption}' is not a positive integer.`,
          readResourceCommand,
        );
      }
    }

    const result = await readSkillResource({ name: await skillName(dir, config.limits), dir }, relPath, { maxBytes });
    if (!result.ok) {
      io.err(`Error: ${result.error}\n`);
      return 1;
    }
    if (result.binary) {
      io.out(`${result.content}\n`);
      return 0;
    }
    // The content byte for byte (so it can be piped or diffed); the notice only when there is one.
    io.out(result.content);
    if (result.notice) io.out(`${result.content.endsWith('\n') ? '' : '\n'}${result.notice}\n`);
    return 0;
  },
};
