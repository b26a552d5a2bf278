/** `npm test`'s first step: what it checks for, and that a machine where it cannot install stops at once, saying how. */
import { describe, expect, it } from 'vitest';
import { SYSTEM_COMPONENTS, type SystemComponent } from '../server/toolchain/system-packages';
import { ensureTestPrerequisites, TEST_COMPONENTS } from './test-prereqs';

const absent: SystemComponent = {
  id: 'absent-tool',
  label: 'absent tool',
  purpose: 'a package this machine cannot have',
  packages: ['skillchat-absent-tool'],
  files: ['/nonexistent/skillchat/absent-tool'],
};

describe('ensureTestPrerequisites', () => {
  it('checks for the browser, the PostgreSQL server, the venv module and, through the runtime, bubblewrap', () => {
    const ids = [...TEST_COMPONENTS, ...SYSTEM_COMPONENTS].map((c) => c.id);
    expect(ids).toEqual(expect.arrayContaining(['chromium', 'postgresql', 'python-venv', 'bubblewrap', 'poppler']));
    expect(SYSTEM_COMPONENTS.find((c) => c.id === 'bubblewrap')?.files).toEqual(['/usr/bin/bwrap']);
  });

  it('not root: prints the apt line to run and stops before the runtime, with a failing status', async () => {
    const lines: string[] = [];
    let runtimeRan = false;
    const status = await ensureTestPrerequisites({
      log: (line) => lines.push(line),
      components: [absent],
      root: false,
      runtime: async () => {
        runtimeRan = true;
      },
    });
    expect(status).toBe(1);
    expect(runtimeRan).toBe(false);
    expect(lines.some((l) => /sudo apt-get install -y skillchat-absent-tool$/.test(l.trim()))).toBe(true);
    expect(lines.at(-1)).toMatch(/run those lines, then `npm test` again/);
  });

  it('with everything present: tops up the runtime, installs the conformance suite and passes', async () => {
    const present: SystemComponent = { ...absent, id: 'shell', files: ['/bin/sh'], packages: ['dash'] };
    let runtimeRan = false;
    let conformanceRan = false;
    const status = await ensureTestPrerequisites({
      log: () => {},
      components: [present],
      root: false,
      runtime: async () => {
        runtimeRan = true;
      },
      conformance: async () => {
        conformanceRan = true;
      },
    });
    expect(status).toBe(0);
    expect(runtimeRan).toBe(true);
    expect(conformanceRan).toBe(true);
  });
});
