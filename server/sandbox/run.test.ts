/**
 * `runSkillScript` over the real bubblewrap backend and the installed skills runtime, and again through the piped
 * backend (test/sandbox/): the bundled pdf skill's form scripts on a real form, the interpreters by extension and
 * shebang, and what the tool result says about produced files.
 * Needs `bin/skills runtime install` (`npm test` does it first); the escape cases are in server/sandbox/escape.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { forEachBackend, ownWorkspaces } from '../../test/sandbox/backends';
import { type ExecutionConfig, resolveExecutionConfig } from '../sandbox/config';
import { runtimeInstalled } from '../toolchain/skills-runtime';
import { safeFileName } from '../workspace/file-names';
import { listWorkspace, saveUpload } from '../workspace/workspace';
import { runSkillScript } from './run';

const APP = path.join(import.meta.dirname, '..', '..');
const PDF_SKILL = { name: 'pdf', dir: path.join(APP, '.skills', 'pdf') };
const RUNTIME = process.env.SKILLCHAT_RUNTIME_DIR ?? path.join(APP, 'data', 'runtime');

let tmp: string;
let config: ExecutionConfig;
const hasRuntime = await runtimeInstalled(RUNTIME);
if (!hasRuntime) console.warn(`skills runtime not installed at ${RUNTIME}: run bin/skills runtime install`);

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-run-'));

  config = resolveExecutionConfig({ sandbox: { backend: 'bwrap' } }, tmp, tmp, { SKILLCHAT_RUNTIME_DIR: RUNTIME });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function upload(chatId: string, file: string) {
  const data = fs.readFileSync(file);
  const saved = await saveUpload(
    config.workspace.dir,
    chatId,
    safeFileName(path.basename(file))!,
    data,
    config.workspace,
  );
  if (!saved.ok) throw new Error(saved.error);
}

forEachBackend(
  "the pdf skill's form scripts over the runtime",
  (backend) => {
    ownWorkspaces(
      backend,
      () => config,
      () => tmp,
    );
    it('lists the fields of an uploaded form as JSON and writes the JSON file', async () => {
      await upload('forms1', path.join(PDF_SKILL.dir, 'assets', 'sample-form.pdf'));
      const r = await runSkillScript(PDF_SKILL, 'scripts/list_fields.py', ['sample-form.pdf', 'fields.json'], {
        chatId: 'forms1',
        execution: config,
      });
      expect(r.stderr).toBe('');
      expect(r.backend).toBe(backend);
      const listed = JSON.parse(r.stdout);
      expect(listed.fields.map((f: { name: string }) => f.name)).toEqual(['full_name', 'email', 'plan', 'newsletter']);
      expect(r.files).toEqual([
        {
          name: 'fields.json',
          size: expect.any(Number),
          mediaType: 'application/json',
          status: 'created',
          version: expect.any(String),
        },
      ]);
      const files = await listWorkspace(config.workspace.dir, 'forms1');
      expect(files.map((f) => [f.name, f.origin])).toEqual([
        ['sample-form.pdf', 'upload'],
        ['fields.json', 'script'],
      ]);
    });

    it('fills the form into a new PDF whose fields hold the values', async () => {
      await upload('forms2', path.join(PDF_SKILL.dir, 'assets', 'sample-form.pdf'));
      const opts = { chatId: 'forms2', execution: config };
      const fill = await runSkillScript(
        PDF_SKILL,
        'scripts/fill_fields.py',
        ['sample-form.pdf', 'filled.pdf', 'full_name=Ada Lovelace', 'newsletter=yes'],
        opts,
      );
      expect(fill.exitCode).toBe(0);
      expect(fill.files.map((f) => [f.name, f.status])).toEqual([['filled.pdf', 'created']]);
      const check = await runSkillScript(PDF_SKILL, 'scripts/list_fields.py', ['filled.pdf'], opts);
      const values = Object.fromEntries(
        JSON.parse(check.stdout).fields.map((f: { name: string; value: string }) => [f.name, f.value]),
      );
      expect(values).toMatchObject({ full_name: 'Ada Lovelace', newsletter: '/Yes' });
    });

    it('refuses an unknown field name with the real names', async () => {
      await upload('forms3', path.join(PDF_SKILL.dir, 'assets', 'sample-form.pdf'));
      const r = await runSkillScript(PDF_SKILL, 'scripts/fill_fields.py', ['sample-form.pdf', 'x.pdf', 'nmae=Ada'], {
        chatId: 'forms3',
        execution: config,
      });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/unknown field\(s\): nmae; the form has: full_name, email, plan, newsletter/);
      expect(r.files).toEqual([]);
    });
  },
  !hasRuntime,
);

forEachBackend(
  'interpreters',
  (backend) => {
    ownWorkspaces(
      backend,
      () => config,
      () => tmp,
    );
    let skill: { name: string; dir: string };
    beforeAll(() => {
      skill = { name: 'multi', dir: path.join(tmp, 'multi') };
      fs.mkdirSync(path.join(skill.dir, 'scripts'), { recursive: true });
      fs.writeFileSync(
        path.join(skill.dir, 'scripts', 'pdf.mjs'),
        "import { createRequire } from 'node:module';\nconst { PDFDocument } = createRequire(process.env.NODE_PATH + '/')('pdf-lib');\n" +
          "const doc = await PDFDocument.create(); doc.addPage();\nconst fs = await import('node:fs');\nfs.writeFileSync(process.argv[2], await doc.save());\nconsole.log('pages', doc.getPageCount());\n",
      );
      fs.writeFileSync(
        path.join(skill.dir, 'scripts', 'tool'),
        '#!/usr/bin/env python3\nimport sys\nprint("shebang", sys.argv[1:])\n',
      );
      fs.writeFileSync(path.join(skill.dir, 'scripts', 'data.txt'), 'not a script');
    });

    it('runs node with the runtime on NODE_PATH', async () => {
      const r = await runSkillScript(skill, 'scripts/pdf.mjs', ['out.pdf'], { chatId: 'node1', execution: config });
      expect(r.stdout).toBe('pages 1\n');
      expect(r.files.map((f) => [f.name, f.mediaType])).toEqual([['out.pdf', 'application/pdf']]);
    });

    it('picks the interpreter from the #! line when there is no extension', async () => {
      const r = await runSkillScript(skill, 'scripts/tool', ['a b', '--help'], { chatId: 'sh1', execution: config });
      expect(r.stdout).toBe("shebang ['a b', '--help']\n");
    });

    it('refuses files that are not scripts and paths out of the skill', async () => {
      const notScript = await runSkillScript(skill, 'scripts/data.txt', [], { execution: config });
      expect(notScript.errorCode).toBe('unsupported-script');
      const out = await runSkillScript(skill, '../multi/scripts/tool', [], { execution: config });
      expect(out.errorCode).toBe('invalid-path');
    });
  },
  !hasRuntime,
);
