/** What a script's stderr and pip's or npm's failures turn into for the operator. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createVenv,
  installFailure,
  installPython,
  lackedPackage,
  missingPackageHint,
  pinnedMajor,
} from './skills-runtime';

describe('missingPackageHint', () => {
  it('with installs allowed, tells the run to install the package, or that the indexes lack it', () => {
    const installs = { installs: true };
    expect(missingPackageHint("ModuleNotFoundError: No module named 'docx'\n", [], installs)).toBe(
      'The Python package `python-docx` (module `docx`) is not installed: `pip install python-docx` installs it for this chat.',
    );
    expect(missingPackageHint("Error: Cannot find module 'left-pad'\n", [], installs)).toMatch(
      /`npm install left-pad`/,
    );
    const pip = 'ERROR: Could not find a version that satisfies the requirement nope (from versions: none)\n';
    expect(missingPackageHint(pip, [], installs)).toMatch(/^The package is not on this server's package indexes/);
    expect(missingPackageHint('requests.exceptions.ConnectionError: NewConnectionError\n', [], installs)).toBeNull();
    expect(missingPackageHint(pip)).toMatch(/^The sandbox has no network/);
  });

  it('names the Python package behind a module, and the install command', () => {
    const stderr =
      'Traceback (most recent call last):\n  File "/skill/x.py", line 1\nModuleNotFoundError: No module named \'docx\'\n';
    expect(missingPackageHint(stderr)).toBe(
      "The Python package `python-docx` (module `docx`) is not in the skills runtime: the server's operator adds it " +
        'to runtime.pythonPackages if needed and runs `bin/skills runtime install`.',
    );
  });

  it('takes the top-level module of a dotted name', () => {
    expect(missingPackageHint("ModuleNotFoundError: No module named 'pandas.core'")).toContain('`pandas`');
  });

  it('says the operator must provide a package the index lacked', () => {
    const hint = missingPackageHint("ModuleNotFoundError: No module named 'pptx'", ['python-pptx', 'pdf2image']);
    expect(hint).toContain('`python-pptx` (module `pptx`)');
    expect(hint).toMatch(/lacks python-pptx, so the operator must provide it there first\.$/);
  });

  it("recognises Node's require and import failures, scoped packages included", () => {
    expect(missingPackageHint("Error: Cannot find module 'pptxgenjs'\nRequire stack:\n- /skill/a.js")).toContain(
      'The Node package `pptxgenjs` is not in the skills runtime',
    );
    expect(
      missingPackageHint("Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'exceljs' imported from /skill/a.mjs"),
    ).toContain('`exceljs`');
    expect(missingPackageHint("Error: Cannot find module '@scope/pkg/lib/x.js'")).toContain('`@scope/pkg`');
  });

  it("leaves a script's own missing files alone", () => {
    expect(missingPackageHint("Error: Cannot find module './helpers'")).toBeNull();
    expect(missingPackageHint("Error: Cannot find module '/skill/scripts/lib.js'")).toBeNull();
  });

  it('names the system package of a missing program, from bash, sh, Python and Node', () => {
    for (const stderr of [
      'bash: line 1: soffice: command not found',
      '/bin/sh: 1: pandoc: not found',
      "FileNotFoundError: [Errno 2] No such file or directory: 'qpdf'",
      'Error: spawn pdftoppm ENOENT',
    ]) {
      expect(missingPackageHint(stderr)).toMatch(
        /is not installed on this server: the operator runs `bin\/skills runtime install`/,
      );
    }
    expect(missingPackageHint('bash: soffice: command not found')).toContain('`soffice` (LibreOffice)');
  });

  it('is null for other failures', () => {
    expect(missingPackageHint('ValueError: bad page\n')).toBeNull();
    expect(missingPackageHint('bash: frobnicate: command not found')).toBeNull();
  });
});

describe('installFailure', () => {
  it('says the index lacks a package pip cannot find', () => {
    const stderr =
      'ERROR: Could not find a version that satisfies the requirement python-pptx (from versions: none)\n' +
      'ERROR: No matching distribution found for python-pptx';
    expect(installFailure('pip', 'python-pptx', stderr)).toMatch(/^the package index lacks python-pptx/);
  });

  it('says the registry lacks a package npm gets a 404 for', () => {
    expect(installFailure('npm', 'nope', 'npm error code E404\nnpm error 404 Not Found - GET https://r/nope')).toMatch(
      /^the npm registry lacks nope/,
    );
  });

  it("keeps the tool's last line otherwise", () => {
    expect(installFailure('pip', 'lxml', 'building wheel\nerror: gcc failed')).toBe('error: gcc failed');
  });
});

describe('lackedPackage', () => {
  it('picks the entry pip names as missing, so the others go in with one more call', () => {
    const stderr = 'ERROR: No matching distribution found for Python_PPTX';
    expect(lackedPackage(stderr, ['pypdf', 'python-pptx>=1.0', 'lxml'])).toBe('python-pptx>=1.0');
  });

  it('is null for any other failure, or a name not asked for', () => {
    expect(lackedPackage('error: gcc failed', ['lxml'])).toBeNull();
    expect(lackedPackage('ERROR: No matching distribution found for setuptools', ['lxml'])).toBeNull();
  });
});

describe('pinnedMajor', () => {
  it('reads a package pinned to one major version, so an installed copy of it is not installed again', () => {
    expect(pinnedMajor('undici@^7')).toEqual({ name: 'undici', major: 7 });
    expect(pinnedMajor('undici@7')).toEqual({ name: 'undici', major: 7 });
    expect(pinnedMajor('@scope/pkg@^2.x')).toEqual({ name: '@scope/pkg', major: 2 });
  });

  it('leaves anything else to npm', () => {
    expect(pinnedMajor('undici')).toBeNull();
    expect(pinnedMajor('undici@^7.1.0')).toBeNull();
    expect(pinnedMajor('undici@latest')).toBeNull();
  });
});

describe('createVenv', () => {
  const scratch = () => fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-venv-'));

  it("names python3-venv when the interpreter has no ensurepip (a minimal Debian), and no path of the server's", async () => {
    const dir = scratch();
    try {
      const python = path.join(import.meta.dirname, 'fixtures', 'python-without-ensurepip', 'python3');
      const why = await createVenv(python, dir);
      expect(why).toMatch(/install python3-venv/);
      expect(why).not.toContain('/root/');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('makes the venv with pip again where an earlier install left it without pip', async () => {
    const dir = scratch();
    try {
      fs.mkdirSync(path.join(dir, 'python', 'bin'), { recursive: true });
      fs.copyFileSync('/usr/bin/python3', path.join(dir, 'python', 'bin', 'python3'));
      const lines: string[] = [];
      const outcome = await installPython({ dir, python: '/usr/bin/python3', pythonPackages: [] }, (l) =>
        lines.push(l),
      );
      expect(outcome.failed).toEqual([]);
      expect(lines).toContain('creating the Python virtual environment from /usr/bin/python3');
      expect(fs.existsSync(path.join(dir, 'python', 'bin', 'pip'))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
