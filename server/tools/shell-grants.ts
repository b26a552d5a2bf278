/**
 * Whether a command is covered by a person's standing shell grants (prefixes from shell-prefix.ts). The command is
 * split the way the shell splits it (shell-quote): every simple command in it (`a; b`, `a && b`, `a | b`) must start
 * with the words of a granted prefix. Anything the split cannot vouch for is not covered and asks again: command or
 * process substitution, a heredoc, backquotes, several lines, subshells.
 */
import { parse } from 'shell-quote';

const SEPARATORS = new Set([';', '&&', '||', '|', '&', '|&']);
const REDIRECTIONS = new Set(['>', '>>', '<', '>&', '<&', '&>', '&>>', '>|']);
/** What shell-quote leaves in a word and bash would still expand into another command. */
const EXPANDS = /`|\$\(|<\(|>\(/;

type Entry = ReturnType<typeof parse>[number];

/** The simple commands of `command` as word lists; null when it holds something a prefix cannot vouch for. */
export function simpleCommands(command: string): string[][] | null {
  if (command.includes('\n') || EXPANDS.test(command)) return null;
  // Variables stay as written (`$HOME`), never expanded to something that could look like a granted word.
  const entries: Entry[] = parse(command, (name) => `$${name}`);
  const commands: string[][] = [[]];
  let redirect = false;
  for (const entry of entries) {
    if (typeof entry === 'string') {
      if (redirect) redirect = false;
      else commands.at(-1)!.push(entry);
      continue;
    }
    if ('comment' in entry) break;
    if (!('op' in entry)) return null;
    if (entry.op === 'glob') {
      if (redirect) redirect = false;
      else commands.at(-1)!.push(entry.pattern);
    } else if (SEPARATORS.has(entry.op)) {
      if (redirect) return null;
      commands.push([]);
    } else if (REDIRECTIONS.has(entry.op)) {
      redirect = true;
    } else {
      return null; // `(`, `)`, `<<`, `<(`: a subshell, a heredoc, a substitution
    }
  }
  if (redirect) return null;
  const nonEmpty = commands.filter((words) => words.length > 0);
  return nonEmpty.length > 0 ? nonEmpty : null;
}

/** True when every simple command of `command` starts with the words of one of `prefixes`. */
export function coveredByPrefixes(command: string, prefixes: readonly string[]): boolean {
  if (prefixes.length === 0) return false;
  const commands = simpleCommands(command);
  if (!commands) return false;
  const granted = prefixes.map((p) => p.trim().split(/\s+/));
  return commands.every((words) => granted.some((prefix) => prefix.every((word, i) => words[i] === word)));
}
