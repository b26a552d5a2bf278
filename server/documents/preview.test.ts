import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { resolveExecutionConfig } from '../sandbox/config';
import { bwrapAvailability } from '../sandbox/select';
import { saveUpload } from '../workspace/workspace';
import { renderPreview } from './preview';

const FORM = path.join(import.meta.dirname, '..', '..', '.skills', 'pdf', 'assets', 'sample-form.pdf');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-preview-'));
const config = resolveExecutionConfig({}, tmp, tmp, {});
const canRun = (await bwrapAvailability(65534)).ok && fs.existsSync('/usr/bin/pdftoppm');
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

it.skipIf(!canRun)("renders a PDF's first page to PNG in the sandbox, and nothing for other files", async () => {
  await saveUpload(config.workspace.dir, 'p1', 'form.pdf', fs.readFileSync(FORM), config.workspace);
  await saveUpload(config.workspace.dir, 'p1', 'notes.txt', Buffer.from('hi'), config.workspace);
  const png = await renderPreview(config, 'p1', 'form.pdf');
  expect(png?.subarray(1, 4).toString()).toBe('PNG');
  expect(await renderPreview(config, 'p1', 'notes.txt')).toBeNull();
  expect(await renderPreview(config, 'p1', 'missing.pdf')).toBeNull();
});
