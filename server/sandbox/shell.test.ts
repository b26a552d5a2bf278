/**
 * The model's shell: who may use it (shell.ts), and what a command finds in the sandbox, as the document skills'
 * own instructions expect it (python and python3, Node packages for require and import, LibreOffice), on bubblewrap
 * and through the piped backend (test/sandbox/).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forEachBackend, ownWorkspaces } from '../../test/sandbox/backends';
import { runtimeInstalled } from '../toolchain/skills-runtime';
import { type ExecutionConfig, resolveExecutionConfig } from './config';
import { runCommand } from './run';
import { bwrapAvailability } from './select';
import { shellModeFor } from './shell';

const APP = path.join(import.meta.dirname, '..', '..');
const RUNTIME = process.env.SKILLCHAT_RUNTIME_DIR ?? path.join(APP, 'data', 'runtime');

describe('shell mode', () => {
  const shell = (file: Record<string, unknown> = {}, env: Record<string, string> = {}) =>
    resolveExecutionConfig({ shell: file }, '/app', '/app/data', env).shell;

  it('defaults to allow on a loopback install and ask on an exposed one', () => {
    expect(shellModeFor(shell(), { exposed: false })).toEqual({ mode: 'allow', source: 'default' });
    expect(shellModeFor(shell(), { exposed: true })).toEqual({ mode: 'ask', source: 'default' });
  });

  it('takes the operator setting, the environment over the file, and a person override over both', () => {
    expect(shellModeFor(shell({ mode: 'off' }), { exposed: false })).toEqual({ mode: 'off', source: 'config' });
    expect(shellModeFor(shell({ mode: 'off' }, { SKILLCHAT_SHELL: 'allow' }), { exposed: true }).mode).toBe('allow');
    const people = shell({ mode: 'ask', people: { 'Ada@Example.org': 'allow', 'eve@example.org': 'off' } });
    expect(shellModeFor(people, { exposed: true, email: 'ada@example.org' })).toEqual({
      mode: 'allow',
      source: 'person',
    });
    expect(shellModeFor(people, { exposed: true, email: 'eve@example.org' }).mode).toBe('off');
    expect(shellModeFor(people, { exposed: true, email: 'bob@example.org' }).mode).toBe('ask');
  });

  it('rejects an unknown mode in the configuration', () => {
    expect(() => shell({ mode: 'sometimes' })).toThrow();
  });
});

const ready = (await bwrapAvailability(100_000)).ok && (await runtimeInstalled(RUNTIME));
let tmp: string;
let config: ExecutionConfig;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-shell-'));
  config = resolveExecutionConfig({}, tmp, tmp, { SKILLCHAT_RUNTIME_DIR: RUNTIME });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

forEachBackend(
  'commands as skills write them',
  (backend) => {
    ownWorkspaces(
      backend,
      () => config,
      () => tmp,
    );

    it('python and python3 are the runtime Python; Node finds the runtime packages with require and import', async () => {
      const r = await runCommand(
        [
          'python -c "import openpyxl, pypdf; print(\'py ok\')"',
          'python3 -c "import sys; print(sys.prefix)"',
          "node -e \"require('pptxgenjs'); console.log('require ok')\"",
          "cat > m.mjs <<'JS'\nimport pptxgen from 'pptxgenjs';\nconsole.log('import', typeof pptxgen);\nJS",
          'node m.mjs',
        ].join('\n'),
        { execution: config, chatId: 'runtime' },
      );
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe('py ok\n/opt/skillchat-runtime/python\nrequire ok\nimport function\n');
    });

    it("Node's fetch works under the run's memory limit (its HTTP parser is WebAssembly)", async () => {
      const script = [
        "const s = require('http').createServer((q, r) => r.end('fetched')).listen(8081, async () => {",
        "  console.log(await (await fetch('http://127.0.0.1:8081/')).text());",
        '  s.close();',
        '});',
      ].join('\n');
      const r = await runCommand(`cat > f.cjs <<'JS'\n${script}\nJS\nnode f.cjs`, {
        execution: config,
        chatId: 'fetch',
      });
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe('fetched\n');
    });

    it.skipIf(!fs.existsSync('/usr/bin/soffice'))(
      'LibreOffice converts a document inside the sandbox',
      async () => {
        const r = await runCommand(
          "printf '# Title\\n\\nBody text.\\n' | pandoc -o in.docx && soffice --headless --convert-to pdf in.docx >/dev/null && pdftotext in.pdf -",
          { execution: config, chatId: 'office' },
        );
        expect(r.exitCode).toBe(0);
        expect(r.stdout).toContain('Body text.');
        expect(r.files.map((f) => f.name).sort()).toEqual(['in.docx', 'in.pdf']);
      },
      60_000,
    );

    it("the runtime's console scripts run, and installing from inside fails at once with a hint", async () => {
      const script = await runCommand('pdfplumber --help | head -1', { execution: config, chatId: 'console' });
      expect(script.stdout).toMatch(/^usage: pdfplumber/);
      const pip = await runCommand('pip install some-package', { execution: config, chatId: 'console' });
      expect(pip.exitCode).not.toBe(0);
      expect(pip.durationMs).toBeLessThan(15_000);
      expect(pip.hint).toMatch(/no network/);
      const npm = await runCommand('npm install -g some-package', { execution: config, chatId: 'console' });
      expect(npm.hint).toMatch(/no network/);
      expect(npm.durationMs).toBeLessThan(15_000);
    }, 40_000);

    it('a script that fails for a missing package says how to install it', async () => {
      const r = await runCommand('python3 -c "import pdf2image_not_here"', { execution: config, chatId: 'hint' });
      expect(r.exitCode).not.toBe(0);
      expect(r.hint).toMatch(/bin\/skills runtime install/);
      const module = await runCommand('python -m not_a_module_here', { execution: config, chatId: 'hint' });
      expect(module.hint).toMatch(/`not_a_module_here` is not in the skills runtime/);
    });
  },
  !ready,
);
