/**
 * Shared by the document-skill tests: run a bundled skill's script on the host the way the sandbox does (the
 * workspace as the working directory, the runtime's python3 and NODE_PATH, HOME a writable scratch folder), and
 * say which tools are missing so a test can skip with the reason.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const APP = path.join(import.meta.dirname, '..', '..');
export const SKILLS = path.join(APP, '.skills');
const RUNTIME = process.env.SKILLCHAT_RUNTIME_DIR ?? path.join(APP, 'data', 'runtime');
export const PYTHON = path.join(RUNTIME, 'python', 'bin', 'python3');
const NODE_PATH = path.join(RUNTIME, 'node', 'node_modules');

function onPath(command: string): boolean {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((dir) => dir !== '' && fs.existsSync(path.join(dir, command)));
}

const available: Record<string, () => boolean> = {
  python: () => fs.existsSync(PYTHON),
  node: () => fs.existsSync(NODE_PATH),
  soffice: () => onPath('soffice'),
  pandoc: () => onPath('pandoc'),
  qpdf: () => onPath('qpdf'),
  poppler: () => onPath('pdftotext') && onPath('pdftoppm') && onPath('pdfinfo'),
};

/** Why a test cannot run here ("missing: soffice, pandoc"), or null when every tool it needs is installed. */
export function missing(...tools: Array<keyof typeof available>): string | null {
  const absent = tools.filter((tool) => !available[tool]!());
  if (absent.length === 0) return null;
  const names = absent.map((t) =>
    t === 'python' || t === 'node' ? `skills runtime ${t} (bin/skills runtime install)` : t,
  );
  return `missing: ${names.join(', ')}`;
}

/** A scratch workspace (and HOME) for one test file; `remove()` in afterAll. */
export function workspace(prefix: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `skillchat-${prefix}-`));
  const home = path.join(dir, '.home');
  fs.mkdirSync(home);
  const env = { ...process.env, HOME: home, NODE_PATH, TMPDIR: home };
  return {
    dir,
    file: (name: string) => path.join(dir, name),
    write: (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text),
    read: (name: string) => fs.readFileSync(path.join(dir, name), 'utf8'),
    /** Any command, in the workspace; rejects with the command's stderr on a non-zero exit. */
    exec: async (command: string, args: string[], options: { timeoutMs?: number } = {}) => {
      const { stdout } = await run(command, args, {
        cwd: dir,
        env,
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 16 * 1024 * 1024,
      });
      return stdout;
    },
    /** A skill's script (path relative to the skill folder) with the runtime's python3; resolves even on failure. */
    script: async (skill: string, script: string, args: string[]) => {
      try {
        const { stdout, stderr } = await run(PYTHON, [path.join(SKILLS, skill, script), ...args], {
          cwd: dir,
          env,
          timeout: 90_000,
        });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const e = error as { code?: number; stdout?: string; stderr?: string };
        return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
      }
    },
    python: (code: string) => run(PYTHON, ['-c', code], { cwd: dir, env, timeout: 60_000 }).then((r) => r.stdout),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** The fenced code block (or heredoc) of a skill's SKILL.md that contains `marker`: the examples are tested too. */
export function exampleFrom(skill: string, marker: string): string {
  const text = fs.readFileSync(path.join(SKILLS, skill, 'SKILL.md'), 'utf8');
  const blocks = [...text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const block = blocks.find((b) => b.includes(marker));
  if (!block) throw new Error(`no example containing ${JSON.stringify(marker)} in ${skill}/SKILL.md`);
  const heredoc = block.match(/<<'(\w+)'\n([\s\S]*?)\n\1\n/);
  return heredoc ? heredoc[2]! : block;
}
