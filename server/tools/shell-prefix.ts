/**
 * What "Always allow" on a shell command's card grants: a command prefix, in the shape of Claude Code's
 * `Bash(npm run test:*)` rules. The card shows it and the server stores it, so both derive it here (no imports: the
 * browser uses this module too). Matching a later command against a granted prefix is the server's (shell-grants.ts).
 */

/** A word the prefix may hold: nothing a shell would expand, quote or treat as an operator. */
const PLAIN = /^[A-Za-z0-9_./+:=@%,-]+$/;

/** Programs whose first argument says what runs: granting them alone would grant any code. */
const INTERPRETERS = new Set(['python', 'python3', 'node', 'bash', 'sh', 'dash', 'perl', 'ruby', 'deno', 'bun']);
/** Programs that run another program named later: a prefix of them would grant whatever follows. */
const WRAPPERS = new Set([
  'env',
  'sudo',
  'xargs',
  'timeout',
  'nice',
  'nohup',
  'exec',
  'eval',
  'command',
  'source',
  '.',
]);
/** Programs whose first argument is a subcommand: `git status` is not `git push`. */
const SUBCOMMANDS = new Set(['npm', 'npx', 'pnpm', 'yarn', 'git', 'pip', 'pip3', 'uv', 'cargo', 'make', 'go']);

/**
 * The prefix "Always allow" grants for `command`, or null when none is offered: a command of several lines, one that
 * does not start with a plain program name, an interpreter without a script or a program that runs another (either
 * would allow any code).
 * `soffice --headless --convert-to pdf a.docx` gives `soffice`; `python3 /skills/xlsx/scripts/recalc.py b.xlsx` gives
 * `python3 /skills/xlsx/scripts/recalc.py`; `npm run build` gives `npm run`.
 */
export function standingPrefix(command: string): string | null {
  if (command.includes('\n')) return null;
  const words = command.trim().split(/\s+/);
  const [program, first] = words;
  if (!program || !PLAIN.test(program)) return null;
  const base = program.slice(program.lastIndexOf('/') + 1);
  if (WRAPPERS.has(base) || base === 'time' || base === 'watch') return null;
  const takesArgument = INTERPRETERS.has(base) || SUBCOMMANDS.has(base);
  if (!takesArgument) return program;
  if (first && PLAIN.test(first) && !first.startsWith('-')) return `${program} ${first}`;
  return INTERPRETERS.has(base) ? null : program;
}
