/**
 * Editing a skill's other text files in the browser: references, scripts, assets. Reads go through the
 * one confined reader (`readSkillResource`); writes only land under the folder of a skill in a writable root, by
 * the same atomic writer as SKILL.md. The relative path is untrusted: the reader's syntactic rules apply, plus no
 * hidden segments (dot files are not part of a skill), and every existing folder on the way must be a real folder,
 * not a link, so a write can never be steered outside the skill. Size is capped at what the reader returns whole,
 * so a saved file reads back in full.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors';
import { isInside } from '../paths';
import { hiddenTextDiagnostic, scanHiddenText } from '../skills/load/hidden-text';
import { listSkillFiles, type SkillFileEntry } from '../skills/resources/files';
import { displayPath, normaliseResourcePath, readSkillResource } from '../skills/resources/resources';
import { type AuthoringHost, type DraftDiagnostic, editableSkill, writeAtomic } from './authoring';

export interface TextFile {
  path: string;
  text: string;
  bytes: number;
}

export interface SavedTextFile {
  path: string;
  bytes: number;
  created: boolean;
  /** The hidden-text scan of what was saved (warnings; the file is saved anyway). */
  diagnostics: DraftDiagnostic[];
}

const SKILL_FILE = /^skill\.md$/i;

/** The normalised relative path, or a 400 naming what is wrong with it. */
export function checkEditablePath(relPath: unknown): string[] {
  const normalised = normaliseResourcePath(relPath);
  if (!normalised.ok) {
    throw new AppError('bad_request:file-path', `Invalid path "${displayPath(relPath)}": ${normalised.reason}`);
  }
  if (normalised.segments.some((s) => s.startsWith('.'))) {
    throw new AppError(
      'bad_request:file-path',
      `Invalid path "${normalised.path}": hidden files and folders are not permitted`,
    );
  }
  if (normalised.segments.length === 1 && SKILL_FILE.test(normalised.segments[0]!)) {
    throw new AppError(
      'bad_request:file-path',
      'SKILL.md is saved by the SKILL.md editor, which checks that it still loads',
    );
  }
  return normalised.segments;
}

/** The skill's files for the editor's file list (links listed, never followed). */
export async function listEditableFiles(host: AuthoringHost, name: string): Promise<SkillFileEntry[]> {
  const skill = await editableSkill(host, name);
  return (await listSkillFiles(skill.dir)).files;
}

/** Reads a text file of an editable skill; 415 for a binary file, 413 when it is larger than a save may be. */
export async function readTextFile(host: AuthoringHost, name: string, relPath: unknown): Promise<TextFile> {
  const skill = await editableSkill(host, name);
  const rel = checkEditablePath(relPath).join('/');
  const maxBytes = host.config.limits.maxResourceBytes;
  const result = await readSkillResource(skill, rel, { maxBytes });
  if (!result.ok) {
    const kind = result.code === 'not-found' ? 'not_found' : result.code === 'unreadable' ? 'forbidden' : 'bad_request';
    throw new AppError(`${kind}:file`, result.error);
  }
  if (result.binary) throw new AppError('unsupported_media_type:file', `"${rel}" is not a text file`);
  if (result.truncated) {
    throw new AppError('payload_too_large:file', `"${rel}" is larger than ${maxBytes} bytes: edit it where it lives`);
  }
  return { path: result.path, text: result.content, bytes: result.bytes };
}

function checkText(text: string, maxBytes: number) {
  if (Buffer.byteLength(text) > maxBytes) {
    throw new AppError('payload_too_large:file', `A file may be at most ${maxBytes} bytes`);
  }
  // A lone surrogate has no UTF-8 encoding (it would be written as U+FFFD); NUL marks a binary file.
  if (/\p{Cs}/u.test(text) || text.includes('\0')) {
    throw new AppError('unsupported_media_type:file', 'Only text can be saved: valid UTF-8 without NUL characters');
  }
}

async function lstatOrNull(p: string): Promise<fs.Stats | null> {
  try {
    return await fs.promises.lstat(p);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Creates or enters each folder on the way, refusing links and non-folders; returns the real parent folder. */
async function parentFolder(skillDir: string, folders: string[], rel: string): Promise<string> {
  let current = skillDir;
  for (const segment of folders) {
    current = path.join(current, segment);
    const stat = await lstatOrNull(current);
    if (stat === null) {
      await fs.promises.mkdir(current).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      // Re-check: something could have appeared between the lstat and the mkdir.
      if (!(await fs.promises.lstat(current)).isDirectory()) {
        throw new AppError('bad_request:file-path', `"${rel}": "${segment}" is not a folder`);
      }
    } else if (stat.isSymbolicLink()) {
      throw new AppError('bad_request:file-path', `"${rel}": "${segment}" is a link; links are not written through`);
    } else if (!stat.isDirectory()) {
      throw new AppError('bad_request:file-path', `"${rel}": "${segment}" is not a folder`);
    }
  }
  const real = await fs.promises.realpath(current);
  if (!isInside(await fs.promises.realpath(skillDir), real)) {
    throw new AppError('bad_request:file-path', `"${rel}" is outside the skill folder`);
  }
  return real;
}

/**
 * Writes `text` to `relPath` inside the skill `name` (creating folders as needed) by temp file + rename, scans it
 * for hidden text, and rescans the registry so the next read sees it.
 */
export async function saveTextFile(
  host: AuthoringHost,
  name: string,
  relPath: unknown,
  text: string,
): Promise<SavedTextFile> {
  const skill = await editableSkill(host, name);
  const segments = checkEditablePath(relPath);
  const rel = segments.join('/');
  checkText(text, host.config.limits.maxResourceBytes);
  const parent = await parentFolder(skill.dir, segments.slice(0, -1), rel);
  const target = path.join(parent, segments.at(-1)!);
  const existing = await lstatOrNull(target);
  if (existing?.isSymbolicLink()) {
    throw new AppError('bad_request:file-path', `"${rel}" is a link; links are not written through`);
  }
  if (existing && !existing.isFile()) throw new AppError('bad_request:file-path', `"${rel}" is not a regular file`);
  await writeAtomic(target, text);
  await host.registry.rescan();
  const warning = hiddenTextDiagnostic(rel, scanHiddenText(text), 'warning');
  return {
    path: rel,
    bytes: Buffer.byteLength(text),
    created: existing === null,
    diagnostics: warning
      ? [
          {
            severity: warning.severity,
            code: warning.code,
            message: warning.message,
            ...(warning.hint ? { hint: warning.hint } : {}),
          },
        ]
      : [],
  };
}
