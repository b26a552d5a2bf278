/**
 * `match`: which skills the offline model would pick for a message, best first. Empty output means none is
 * relevant enough: the first answer to "why didn't my skill trigger?".
 */
import { createHash } from 'node:crypto';
import {
  DEFAULT_TUNING,
  MATCH_THRESHOLD,
  type Matcher,
  matcherInput,
  matcherOver,
  type RankedSkill,
} from '../../server/skills/catalog/match';
import { buildIndex, decodeIndex, encodeIndex } from '../../server/skills/catalog/match-index';
import { walk } from './app';
import type { KeptAnswer } from './cache/answer-cache';
import { type Command, commandHelp, parseArgs } from './command';

/**
 * The matcher over the skills `list` shows. Its index is kept in its packed form (server/skills/catalog/match-index.ts): an
 * unchanged catalog is matched without parsing a skill, analysing a description or building an object per skill.
 *
 * The index depends on the skills' names and descriptions alone (`matcherInput`), so it is kept under their digest
 * (slot `match-index`), and each walk keeps only which digest it had (slot `match`, bin/cli/cache/answer-cache.ts). A walk
 * that changed (an edited body, a touched file) parses what changed and finds the same index under the same digest;
 * only a changed name or description, or an added or removed skill, builds it again (about a third of such a run). A kept index that does not decode is built again and replaced.
 */
async function matcherFor(rootDirs: readonly string[]): Promise<Matcher> {
  const walked = await walk(rootDirs);
  const byWalk = walked.answer('match', '');
  const keptKey = byWalk?.hit?.toString('utf8');
  const kept = keptKey ? keptMatcher(walked.kept('match-index', keptKey)) : null;
  if (kept) return kept;
  const discovered = await walked.finish();
  discovered.save();
  const { skills } = discovered.result;
  const key = createHash('sha256').update(matcherInput(skills)).digest('hex');
  byWalk?.save(key);
  const byCatalog = walked.kept('match-index', key);
  // The walk's digest was just tried, and its index did not decode.
  const same = key === keptKey ? null : keptMatcher(byCatalog);
  if (same) return same;
  const index = buildIndex(skills);
  byCatalog?.save(encodeIndex(index));
  return matcherOver(index, DEFAULT_TUNING);
}

function keptMatcher(answer: KeptAnswer | null): Matcher | null {
  const bytes = answer?.hit;
  if (!bytes) return null;
  try {
    return matcherOver(decodeIndex(bytes), DEFAULT_TUNING);
  } catch {
    return null; // damaged: built again
  }
}

/** Why nothing matched, for a person: the nearest skills and how far they were from the threshold. */
function noMatch(nearest: readonly RankedSkill[]): string {
  const needed = `a score of at least ${MATCH_THRESHOLD.toFixed(2)}`;
  if (nearest.length === 0) return `No skill matched: none shares a word with the text (a match needs ${needed}).\n`;
  const list = nearest.map((m) => `${m.name} ${m.score.toFixed(2)}`).join(', ');
  return `No skill matched (a match needs ${needed}). Nearest: ${list}.\n`;
}

export const matchCommand: Command = {
  name: 'match',
  args: '[OPTIONS] TEXT...',
  summary: 'Print the skills that match TEXT, best first, one per line.',
  details: [
    'Uses the matcher the offline model uses, over the same skills as `list`.\nWhen no skill is relevant enough, prints nothing on stdout, says on stderr\nwhich skills came nearest and the score they needed, and exits 1 (as grep\ndoes). Several TEXT arguments are joined with spaces.',
  ],
  options: [
    ['--root DIR', 'Scan DIR instead of the configured roots (repeatable; first wins).'],
    ['--scores', 'Print each relevance score (0-1) after the name, tab-separated.'],
  ],
  async run(args, io) {
    const parsed = parseArgs(
      args,
      { flags: ['--scores'], options: ['--root'], positionals: { names: 'TEXT...', min: 1, max: Infinity } },
      matchCommand,
    );
    if (parsed.help) {
      io.out(commandHelp(matchCommand));
      return 0;
    }
    const text = parsed.positionals.join(' ');
    const matcher = await matcherFor(parsed.options.get('--root') ?? []);
    const matched = matcher.match(text);
    if (matched.length === 0) {
      io.err(noMatch(matcher.nearest(text, 3)));
      return 1;
    }
    // Tab-separated so the scores can be cut out with standard tools.
    const scores = parsed.flags.has('--scores');
    io.out(matched.map((m) => (scores ? `${m.name}\t${m.score.toFixed(3)}\n` : `${m.name}\n`)).join(''));
    return 0;
  },
};
