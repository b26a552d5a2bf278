/**
 * Finding file paths in free text, for the offline model: a person writes "read references/REFERENCE.md and
 * ../SKILL.md", a skill's instructions say "read `references/guide.md`". Nothing here touches the disk or decides
 * what is allowed: every candidate goes to `skills_readResource`, whose confined reader refuses what it must
 * (so `/etc/passwd` is deliberately kept, to show the refusal rather than silently skip it).
 */

/**
 * Extensions a bare file name (no `/`) must have to count as a path. Without the list, prose such as "agentskills.io"
 * or "e.g." would become reads.
 */
const FILE_EXTENSIONS = new Set([
  'md',
  'mdx',
  'txt',
  'json',
  'jsonl',
  'yaml',
  'yml',
  'toml',
  'ini',
  'cfg',
  'conf',
  'env',
  'csv',
  'tsv',
  'xml',
  'html',
  'htm',
  'css',
  'sh',
  'bash',
  'zsh',
  'ps1',
  'py',
  'js',
  'mjs',
  'cjs',
  'ts',
  'mts',
  'tsx',
  'jsx',
  'rb',
  'go',
  'rs',
  'java',
  'kt',
  'c',
  'h',
  'cpp',
  'hpp',
  'cs',
  'php',
  'sql',
  'lock',
  'log',
  'pdf',
  'png',
  'jpg',
  'jpeg',
  'gif',
  'svg',
  'webp',
  'zip',
  'gz',
  'tgz',
  'tar',
  'ttf',
  'otf',
  'woff',
  'woff2',
  'docx',
  'xlsx',
  'pptx',
]);

/** Word pairs written with a slash in prose; reading them as files would be noise. */
const PROSE_SLASH_WORDS = new Set([
  'and/or',
  'either/or',
  'input/output',
  'i/o',
  'n/a',
  'true/false',
  'yes/no',
  'on/off',
  'read/write',
  'client/server',
  'he/him',
  'she/her',
  'they/them',
]);

const LEADING_WRAPPERS = /^[`'"([{<*_]+/;
const TRAILING_WRAPPERS = /[`'")\]}>*_.,;:!?]+$/;

/** Upper bound on candidates from one text, so a pasted file listing cannot fan out into dozens of reads. */
export const MAX_PATHS_PER_TEXT = 8;

function cleanToken(raw: string): string {
  return raw.replace(LEADING_WRAPPERS, '').replace(TRAILING_WRAPPERS, '');
}

/** Is this (already cleaned) token something a person would mean as a file path? */
export function isPathLike(token: string): boolean {
  if (token.length < 2 || token.length > 1024) return false;
  if (/^[a-z][a-z0-9+.-]*:/i.test(token)) return false; // URLs, mailto:, C: drive letters
  if (token.startsWith('#') || token.startsWith('@') || token.startsWith('www.')) return false;
  if (!/[\p{L}\p{N}]/u.test(token)) return false;
  if (token.includes('/')) {
    if (PROSE_SLASH_WORDS.has(token.toLowerCase())) return false;
    // "1/2", "3/4": fractions and dates, not files.
    if (/^[\d/.-]+$/.test(token)) return false;
    return true;
  }
  const dot = token.lastIndexOf('.');
  if (dot <= 0) return false;
  const ext = token.slice(dot + 1).toLowerCase();
  if (!FILE_EXTENSIONS.has(ext)) return false;
  // "Node.js", "Next.js", "Vue.js": a capitalised name with `.js` is a project, not a file.
  if (ext === 'js' && /^[A-Z][a-z]/.test(token)) return false;
  return /^[\p{L}\p{N}_][\p{L}\p{N}_.-]*$/u.test(token);
}

/** `./a/b.md` and `a/b.md` are the same request; anything else (`..`, absolute) is kept as written. */
export function normalizeRequestedPath(p: string): string {
  let out = p.trim().replace(/\\/g, '/');
  while (out.startsWith('./')) out = out.slice(2);
  return out.replace(/\/{2,}/g, '/');
}

function pushUnique(out: string[], seen: Set<string>, candidate: string): void {
  const normalized = normalizeRequestedPath(candidate);
  if (normalized === '' || seen.has(normalized) || out.length >= MAX_PATHS_PER_TEXT) return;
  seen.add(normalized);
  out.push(normalized);
}

const MARKDOWN_LINK = /\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const BACKTICKED = /`([^`\n]+)`/g;

/**
 * Paths a person named in a message, in the order they appear. A leading `/skill-name` invocation (when
 * `isSkillName` knows the name) is dropped: it would otherwise look like an absolute path.
 */
export function findPathsInMessage(text: string, options: { isSkillName?: (name: string) => boolean } = {}): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  let body = text;
  const invocation = /^\s*[/$]([\p{L}\p{N}-]+)(?=\s|$)/u.exec(body);
  if (invocation?.[1] && options.isSkillName?.(invocation[1])) body = body.slice(invocation[0].length);

  // A fenced block is pasted data (a diff, a log, a CSV), not a request to read the paths it mentions.
  body = body.replace(/^ {0,3}(```|~~~)[^\n]*\n[\s\S]*?(?:^ {0,3}\1[^\n]*$|(?![\s\S]))/gm, (block) =>
    ' '.repeat(block.length),
  );
  // Link targets first (their text part may be prose), then every whitespace-separated token in reading order.
  const linkTargets = new Map<number, string>();
  for (const m of body.matchAll(MARKDOWN_LINK)) {
    if (m[1] !== undefined) linkTargets.set(m.index, m[1]);
  }
  const withoutLinks = body.replace(MARKDOWN_LINK, (whole) => ' '.repeat(whole.length));
  const tokens: { at: number; value: string }[] = [...linkTargets].map(([at, value]) => ({ at, value }));
  for (const m of withoutLinks.matchAll(/\S+/g)) tokens.push({ at: m.index, value: cleanToken(m[0]) });
  tokens.sort((a, b) => a.at - b.at);
  for (const { value } of tokens) {
    if (isPathLike(value)) pushUnique(out, seen, value);
  }
  return out;
}

/**
 * Paths a skill's instructions point to: Markdown link targets and backticked paths (inside a backticked command
 * such as `` `bash scripts/run.sh --flag` ``, the tokens with a `/`). Only relative paths: the instructions describe
 * their own folder, and an absolute path there is an example, not a reference. `SKILL.md` itself is already loaded.
 */
export function findPathsInInstructions(instructions: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const found: { at: number; value: string }[] = [];
  for (const m of instructions.matchAll(MARKDOWN_LINK)) {
    if (m[1] !== undefined) found.push({ at: m.index, value: m[1] });
  }
  for (const m of instructions.matchAll(BACKTICKED)) {
    const content = (m[1] ?? '').trim();
    if (!/\s/.test(content)) {
      found.push({ at: m.index, value: cleanToken(content) });
      continue;
    }
    for (const part of content.split(/\s+/)) {
      const token = cleanToken(part);
      if (token.includes('/')) found.push({ at: m.index, value: token });
    }
  }
  found.sort((a, b) => a.at - b.at);
  for (const { value } of found) {
    const target = value.split('#')[0] ?? '';
    // A folder (`references/`) is a place, not a file to read.
    if (!isPathLike(target) || target.startsWith('/') || target.startsWith('~') || target.endsWith('/')) continue;
    if (/^(\.\/)?skill\.md$/i.test(target)) continue;
    pushUnique(out, seen, target);
  }
  return out;
}

/**
 * The files a skill's instructions point to. The folder listing, when the activation gave one, tells real
 * references from example paths in prose (`path/to/skill`, `bin/skills`).
 */
export function pointedFiles(activation: { instructions: string; resources?: string[] | undefined }): string[] {
  const pointed = findPathsInInstructions(activation.instructions);
  if (!activation.resources || activation.resources.length === 0) return pointed;
  const files = new Set(activation.resources.map(normalizeRequestedPath));
  return pointed.filter((p) => files.has(p));
}
