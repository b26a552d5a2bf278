/**
 * Writing skills in the browser. Only skills inside a writable root can be edited or created: today that
 * is the install root (`install.root`, `~/.skillchat/skills` by default), the one folder the app already owns.
 * A draft is checked by the loader discovery uses, on a private copy, so the editor shows exactly the diagnostics
 * the skill will get; a save is refused when the draft would not load (the skill would vanish from the editor), and
 * lands atomically (temp file + rename) so a reader never sees half a file. The registry rescans after a save.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AppConfig, Limits } from '../config';
import { AppError } from '../errors';
import { isInside } from '../paths';
import { countTokens } from '../skills/catalog/catalog';
import { catalogDescription } from '../skills/load/arguments';
import { FOLDER_NAME_CODES } from '../skills/load/diagnostics';
import { splitFrontmatter } from '../skills/load/frontmatter';
import { loadSkill } from '../skills/load/skill-file';
import { MAX_SKILL_NAME_LENGTH, normalizeSkillName } from '../skills/load/validate';
import type { SkillRegistry } from '../skills/registry';
import type { Diagnostic, Skill } from '../skills/types';

export interface AuthoringHost {
  config: Pick<AppConfig, 'install' | 'limits'>;
  registry: Pick<SkillRegistry, 'get' | 'rescan'>;
}

/** A diagnostic as the editor shows it: no server paths. */
export type DraftDiagnostic = Pick<Diagnostic, 'severity' | 'code' | 'message' | 'hint'>;

export interface DraftCheck {
  /** The draft would load as a skill (no error diagnostics). */
  loads: boolean;
  diagnostics: DraftDiagnostic[];
  name: string | null;
  /** The catalog entry the model would see (`when_to_use` appended), and its tokens. */
  catalogEntry: string | null;
  catalogTokens: number | null;
  /** The instructions (the text after the frontmatter), for the preview. */
  body: string;
}

export function writableRoots(config: Pick<AppConfig, 'install'>): string[] {
  return [path.resolve(config.install.root)];
}

function realOrSelf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/** The writable root holding `dir`, or null. Both sides real paths, so a symlinked root still matches. */
export function writableRootOf(config: Pick<AppConfig, 'install'>, dir: string): string | null {
  const real = realOrSelf(dir);
  return writableRoots(config).find((root) => isInside(realOrSelf(root), real) && realOrSelf(root) !== real) ?? null;
}

const INSTALL_NAME_HINT =
  'Skills written here live in the install root, where a name must be clean, as an install requires.';

/** Runs the discovery loader on `text` as `<folder>/SKILL.md` in a private temporary folder; nothing is kept. */
export async function checkDraft(text: string, folder: string, limits: Limits): Promise<DraftCheck> {
  const tmp = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'skillchat-draft-'));
  try {
    const dir = path.join(tmp, folder);
    await fs.promises.mkdir(dir);
    await fs.promises.writeFile(path.join(dir, 'SKILL.md'), text);
    const { skill, diagnostics } = await loadSkill(dir, { root: tmp, scope: 'user', relDir: folder, limits });
    const split = splitFrontmatter(text);
    const entry = skill ? JSON.stringify({ name: skill.name, description: catalogDescription(skill) }) : null;
    // The editor writes into the install root, so it holds a name to the install's rule, not discovery's warning.
    const badName = diagnostics.some((d) => FOLDER_NAME_CODES.has(d.code));
    return {
      loads: skill !== null && !badName,
      diagnostics: diagnostics.map(({ severity, code, message, hint }) =>
        FOLDER_NAME_CODES.has(code)
          ? { severity: 'error' as const, code, message, hint: `${hint ? `${hint} ` : ''}${INSTALL_NAME_HINT}` }
          : { severity, code, message, ...(hint ? { hint } : {}) },
      ),
      name: skill?.name ?? null,
      catalogEntry: entry,
      catalogTokens: entry === null ? null : countTokens(entry),
      body: split.ok ? split.body : text,
    };
  } finally {
    await fs.promises.rm(tmp, { recursive: true, force: true });
  }
}

/** Writes `text` to `file` through a temp file in the same folder and a rename: readers see old or new, never half. */
export async function writeAtomic(file: string, text: string): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomUUID()}.tmp`);
  try {
    await fs.promises.writeFile(temp, text, { flag: 'wx', mode: 0o644 });
    await fs.promises.rename(temp, file);
  } catch (error) {
    await fs.promises.rm(temp, { force: true });
    throw error;
  }
}

/** The loaded skill `name` when it lives in a writable root; 404 when unknown, 403 when elsewhere. */
export async function editableSkill(host: AuthoringHost, name: string): Promise<Skill> {
  const skill = await host.registry.get(name);
  if (!skill) throw new AppError('not_found:skill', `Skill "${name}" not found`);
  if (!writableRootOf(host.config, skill.dir)) {
    throw new AppError(
      'forbidden:authoring',
      `Skill "${name}" is not in a writable root: only skills in the install root can be edited in the browser`,
    );
  }
  return skill;
}

function checkSize(text: string, limits: Limits) {
  if (Buffer.byteLength(text) > limits.maxSkillFileBytes) {
    throw new AppError('payload_too_large:authoring', `SKILL.md may be at most ${limits.maxSkillFileBytes} bytes`);
  }
}

export class DraftRefused extends AppError {
  constructor(readonly check: DraftCheck) {
    super('bad_request:draft', 'The draft would not load as a skill: fix the errors first');
  }
  override toJSON() {
    return { ...super.toJSON(), diagnostics: this.check.diagnostics };
  }
}

/** Saves a new SKILL.md for `name` (only when it still loads, under the same name), then rescans. */
export async function saveSkillFile(host: AuthoringHost, name: string, text: string): Promise<DraftCheck> {
  const skill = await editableSkill(host, name);
  checkSize(text, host.config.limits);
  const check = await checkDraft(text, path.basename(skill.dir), host.config.limits);
  if (!check.loads) throw new DraftRefused(check);
  if (check.name !== skill.name) {
    throw new AppError('bad_request:draft', `The name must stay "${skill.name}" (rename the folder to rename a skill)`);
  }
  await writeAtomic(skill.file, text);
  await host.registry.rescan();
  return check;
}

const NAME_RE = /^[\p{Ll}\p{Lo}\p{N}]+(?:-[\p{Ll}\p{Lo}\p{N}]+)*$/u;

/** A new skill's SKILL.md: valid as it stands, and it says what to write where. */
export function templateFor(name: string, description: string): string {
  return [
    '---',
    `name: ${name}`,
    `description: ${JSON.stringify(description)}`,
    '---',
    '',
    `# ${name}`,
    '',
    '## When to use',
    '',
    'Say when the model should pick this skill; the description above is what it sees before activating it.',
    '',
    '## Steps',
    '',
    '1. First step.',
    '2. Second step.',
    '',
  ].join('\n');
}

/** Creates `<install root>/<name>/SKILL.md` from the template; 400 for a bad name, 409 when the folder exists. */
export async function createSkill(host: AuthoringHost, rawName: string, rawDescription: string): Promise<string> {
  const name = normalizeSkillName(rawName.trim());
  if (!name || name.length > MAX_SKILL_NAME_LENGTH || !NAME_RE.test(name)) {
    throw new AppError(
      'bad_request:skill-name',
      'A skill name is 1-64 lowercase letters, digits and single hyphens, not starting or ending with a hyphen',
    );
  }
  if (await host.registry.get(name)) throw new AppError('conflict:skill', `A skill named "${name}" already exists`);
  const description = rawDescription.trim() || `Describe what ${name} does and when to use it.`;
  const [root] = writableRoots(host.config);
  const dir = path.join(root!, name);
  if (!isInside(root!, dir)) throw new AppError('bad_request:skill-name', 'Invalid skill name');
  const text = templateFor(name, description);
  checkSize(text, host.config.limits);
  await fs.promises.mkdir(root!, { recursive: true });
  try {
    await fs.promises.mkdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new AppError('conflict:skill', `A skill folder named "${name}" already exists`);
    }
    throw error;
  }
  await writeAtomic(path.join(dir, 'SKILL.md'), text);
  await host.registry.rescan();
  return name;
}
