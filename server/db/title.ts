/**
 * A chat's title from its first message: the one derivation, used by the server when it stores the first message
 * and by the browser for the title it shows before the server's answer arrives. No imports: safe for the browser.
 *
 * What was asked, not how it was typed: leading `/skill` invocations become a "skill: " prefix, a `$ command` line
 * becomes its program and main file ("docx: soffice report.docx to pdf"), and a message with nothing else names
 * its attached files. A real model's title replaces this one later (`chat/generated-title.ts`); a person's never is.
 */
export const DEFAULT_CHAT_TITLE = 'New chat';
/** Titles derived from a first message; long enough to tell chats apart in a sidebar. */
export const DERIVED_TITLE_LENGTH = 60;

/**
 * Whitespace collapsed, cut at a word boundary to at most `maxLength` characters (counted in code points, so an
 * emoji is never split) with an ellipsis; the default title when nothing is left.
 */
export function capTitle(text: string, maxLength = DERIVED_TITLE_LENGTH): string {
  const title = text.replace(/\s+/g, ' ').trim();
  if (title === '') return DEFAULT_CHAT_TITLE;
  const chars = Array.from(title);
  if (chars.length <= maxLength) return title;
  const cut = chars.slice(0, maxLength - 1).join('');
  const lastSpace = cut.lastIndexOf(' ');
  // Back off to the last word boundary unless that throws away more than half the title (one very long word).
  const trimmed = lastSpace > cut.length / 2 ? cut.slice(0, lastSpace) : cut;
  return `${trimmed.trimEnd()}…`;
}

// The `/name` syntax of `skills/invocation.ts` (a name runs to whitespace and holds no other slash, so a path such
// as `/etc/passwd` is not one). Written again here: this module imports nothing.
const LEADING_INVOCATION = /^\s*\/([^\s/]+)(?:\s+|$)/;
// `$ COMMAND`, as the offline model reads it (`offline-model/answer.ts`).
const COMMAND_LINE = /^\s*\$[ \t]+(\S[\s\S]*)$/;
/** Words that only prepare the command; the program is the first word after them. */
const PREFIX_WORDS = new Set(['sudo', 'env', 'time', 'nice', 'timeout', 'exec', 'command']);
/** Programs that run a script: the script names what is done. */
const INTERPRETERS = new Set(['python', 'python3', 'node', 'bash', 'sh', 'ruby', 'perl', 'deno', 'bun', 'npx', 'uv']);
/** Commands that only set the scene for the next one (`cd out && soffice ...`). */
const SETUP_COMMANDS = new Set(['cd', 'export', 'set', 'mkdir', 'source', '.', 'true']);

const basename = (word: string) => word.replace(/\/+$/, '').split('/').pop() ?? word;
const unquote = (word: string) => word.replace(/^(["'])(.*)\1$/, '$2');
/** A word that names a file: has an extension or a folder, and is not an option or a URL. */
const isFileWord = (word: string) =>
  !word.startsWith('-') && !/^[a-z]+:\/\//i.test(word) && /(^|\/)[^/]*\.[A-Za-z0-9]{1,8}$/.test(word);

/** One command line as what it does: "soffice report.docx to pdf", "fill_form.py form.pdf", "qpdf in.pdf". */
export function describeCommand(command: string): string {
  const firstLine = command.split(/\r\n|\r|\n/).find((l) => l.trim() !== '') ?? '';
  const segments = firstLine.split(/\s*(?:&&|\|\||;|\|)\s*/).map((s) => s.trim().split(/\s+/).map(unquote));
  const words =
    segments.find((w) => w[0] !== undefined && w[0] !== '' && !SETUP_COMMANDS.has(w[0])) ?? segments[0] ?? [];
  let i = 0;
  while (i < words.length && (PREFIX_WORDS.has(words[i]!) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!))) i++;
  const program = words[i];
  if (!program) return firstLine.trim();
  let args = words.slice(i + 1);
  let name = basename(program);
  if (INTERPRETERS.has(name)) {
    const script = args.findIndex((a) => !a.startsWith('-') && a !== 'run');
    if (script >= 0) {
      name = basename(args[script]!);
      args = args.slice(script + 1);
    }
  }
  const file = args.find(isFileWord);
  const convert = args.findIndex((a) => a === '--convert-to' || a.startsWith('--convert-to='));
  const target = convert >= 0 ? (args[convert]!.split('=')[1] ?? args[convert + 1])?.split(':')[0] : undefined;
  return [name, file ? basename(file) : '', target ? `to ${target}` : ''].filter(Boolean).join(' ');
}

/**
 * The title of a chat whose first message is `text`, with these files attached: its request's first non-blank
 * line (a `$ command` described by `describeCommand`), after "skill: " when it starts with `/skill`; the files'
 * names when nothing else is said; capped by `capTitle`.
 */
export function deriveTitle(text: string, attachments: readonly string[] = []): string {
  const skills: string[] = [];
  let rest = text;
  for (let m = LEADING_INVOCATION.exec(rest); m; m = LEADING_INVOCATION.exec(rest)) {
    if (!skills.includes(m[1]!)) skills.push(m[1]!);
    rest = rest.slice(m[0].length);
  }
  const command = COMMAND_LINE.exec(rest)?.[1];
  const line = command
    ? describeCommand(command)
    : (rest.split(/\r\n|\r|\n/).find((l) => l.trim() !== '') ?? '').trim();
  const asked = line !== '' ? line : attachments.join(', ');
  const prefix = skills.join(', ');
  if (prefix === '') return capTitle(asked);
  return capTitle(asked === '' ? prefix : `${prefix}: ${asked}`);
}
