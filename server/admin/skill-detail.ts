/**
 * One skill for `/admin/skills/[name]`: its frontmatter, instructions, files and diagnostics. Every read goes
 * through `readSkillInstructions`/`readSkillResource`, the same confined reader the model's tools use, so the admin
 * page cannot be made to show a file outside the skill folder either.
 */
import type { AppConfig } from '../config';
import { declarationProblems } from '../egress/declarations';
import { countTokens } from '../skills/catalog/catalog';
import { hiddenTextDiagnostic, scanHiddenText } from '../skills/load/hidden-text';
import type { SkillRegistry } from '../skills/registry';
import { listSkillFiles } from '../skills/resources/files';
import { readSkillInstructions, readSkillResource } from '../skills/resources/resources';
import type { Diagnostic, Severity, Skill, SkillFrontmatter, SkillScope } from '../skills/types';
import { createPathDisplay, type PathMode } from './paths';

export interface AdminSkillFile {
  path: string;
  size: number;
  kind: 'file' | 'symlink';
  /** Null when it could not be read (a symlink leading outside the skill, permissions...). */
  binary: boolean | null;
  /** Why it could not be read, when it could not. */
  error: string | null;
}

export interface AdminSkillDetail {
  name: string;
  description: string;
  location: string;
  root: string;
  scope: SkillScope;
  skillFile: string;
  frontmatter: SkillFrontmatter;
  /** The YAML between the fences, as written. */
  frontmatterText: string | null;
  /** The Markdown body, or null with `instructionsError` when it could not be read. */
  instructions: string | null;
  instructionsError: string | null;
  instructionsTokens: number | null;
  files: AdminSkillFile[];
  filesCapped: boolean;
  diagnostics: Array<{ severity: Severity; code: string; message: string; hint: string | null }>;
}

/** Enough to tell text from binary (a NUL byte or invalid UTF-8 in the first 4 KiB) without reading whole files. */
const SNIFF_BYTES = 4096;
/**
 * Hidden text in the skill's text resources (SKILL.md is scanned when the skill loads). Done here, on demand, rather
 * than in discovery: reading every file of every skill would multiply the cost of a scan.
 */
async function hiddenTextInResources(skill: Skill, files: AdminSkillFile[], maxBytes: number): Promise<Diagnostic[]> {
  const skillFile = skill.file.slice(skill.dir.length + 1);
  const found: Diagnostic[] = [];
  for (const file of files) {
    if (file.binary !== false || file.path === skillFile) continue;
    const read = await readSkillResource(skill, file.path, { maxBytes });
    if (!read.ok || read.binary) continue;
    const d = hiddenTextDiagnostic(file.path, scanHiddenText(read.content), 'warning');
    if (d) found.push(d);
  }
  return found;
}

/** Instructions shown in full up to this size; the model reads the same cap by default. */
const MAX_INSTRUCTIONS_BYTES = 256 * 1024;

export async function loadAdminSkill(
  app: { config: AppConfig; registry: SkillRegistry },
  name: string,
  options: { paths?: PathMode } = {},
): Promise<AdminSkillDetail | null> {
  // By name from the registry: a URL segment never becomes a path.
  const skill = await app.registry.get(name);
  if (!skill) return null;
  const display = createPathDisplay(app.config, options.paths);

  const [instructions, listing] = await Promise.all([
    readSkillInstructions(skill, { maxBytes: MAX_INSTRUCTIONS_BYTES }),
    listSkillFiles(skill.dir),
  ]);
  const files = await Promise.all(
    listing.files.map(async (f): Promise<AdminSkillFile> => {
      const read = await readSkillResource(skill, f.path, { maxBytes: SNIFF_BYTES });
      return read.ok ? { ...f, binary: read.binary, error: null } : { ...f, binary: null, error: read.error };
    }),
  );

  const resourceWarnings = await hiddenTextInResources(skill, files, app.config.limits.maxResourceBytes);

  return {
    name: skill.name,
    description: skill.description,
    location: display.folder(skill.dir),
    root: display.root(skill.root),
    scope: skill.scope,
    skillFile: display.folder(skill.file),
    frontmatter: skill.frontmatter,
    frontmatterText: instructions.ok ? instructions.frontmatterText : null,
    instructions: instructions.ok ? instructions.body : null,
    instructionsError: instructions.ok ? null : instructions.error,
    instructionsTokens: instructions.ok ? countTokens(instructions.body) : null,
    files,
    filesCapped: listing.capped,
    diagnostics: [...skill.diagnostics, ...declarationProblems(skill), ...resourceWarnings].map((d) => ({
      severity: d.severity,
      code: d.code,
      message: display.text(d.message),
      hint: d.hint ? display.text(d.hint) : null,
    })),
  };
}
