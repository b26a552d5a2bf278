/**
 * A PNG of a PDF's first page for the artifact card. A PDF is untrusted input for a parser, so pdftoppm runs in the
 * same sandbox as scripts (the chat's files at /workspace, nothing else), never on the host. Null when there is no
 * preview: not a PDF, no sandbox here, or pdftoppm failed (or is not installed where the sandbox runs).
 */
import fs from 'node:fs';
import type { ExecutionConfig } from '../sandbox/config';
import { sandboxLimits } from '../sandbox/config';
import { SANDBOX_PATHS } from '../sandbox/port';
import { runSandboxed } from '../sandbox/run';
import { folderFiles } from '../workspace/run-files';
import { workspaceDir } from '../workspace/workspace';

const MAX_PNG_BYTES = 8 * 1024 * 1024;

export async function renderPreview(config: ExecutionConfig, chatId: string, name: string): Promise<Buffer | null> {
  if (!name.toLowerCase().endsWith('.pdf')) return null;
  const dir = workspaceDir(config.workspace.dir, chatId);
  const stat = await fs.promises.lstat(/*turbopackIgnore: true*/ `${dir}/${name}`).catch(() => null);
  if (!stat?.isFile()) return null;
  const limits = { ...sandboxLimits(config), timeoutMs: 15_000, maxOutputBytes: MAX_PNG_BYTES };
  const run = await runSandboxed(
    {
      // No PPM root: pdftoppm writes the image to stdout ("-" would name a file).
      argv: [
        'pdftoppm',
        '-png',
        '-f',
        '1',
        '-l',
        '1',
        '-scale-to',
        '640',
        '-singlefile',
        `${SANDBOX_PATHS.workspace}/${name}`,
      ],
      mounts: [],
      workspace: folderFiles(dir, { maxBytes: limits.maxWorkspaceBytes, maxEntries: limits.maxWorkspaceEntries }),
      limits,
    },
    { execution: config, chatId, owner: `preview:${chatId}` },
  );
  if (!run.ok) return null;
  const result = run.output;
  if (result.exitCode !== 0 || result.stop || !result.stdoutBytes?.length) return null;
  return result.stdoutBytes;
}
