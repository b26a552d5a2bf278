/**
 * The port without any real sandbox: a fake backend in place of the configured one is probed once, gets the run's
 * files, slot uid and limits, and what it writes comes back as the run's files, under its own name.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ExecutionConfig, resolveExecutionConfig } from './config';
import type { Availability, SandboxBackend, SandboxRequest } from './port';
import { runCommand } from './run';
import { chooseSandbox, replaceSandboxBackend } from './select';

let tmp: string;
let config: ExecutionConfig;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-select-'));
  config = resolveExecutionConfig({ sandbox: { uid: 130_000 } }, tmp, tmp, {});
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(() => replaceSandboxBackend(null));

function fake(name: string, availability: Availability, seen: SandboxRequest[] = []) {
  let probes = 0;
  const backend: SandboxBackend = {
    name,
    label: `fake ${name}`,
    probe: async () => {
      probes++;
      return availability;
    },
    async run(request) {
      seen.push(request);
      fs.writeFileSync(path.join(request.workspace.dir, 'made.txt'), 'made');
      return { exitCode: 0, signal: null, stdout: 'hi\n', stderr: '', truncated: false, stop: null, durationMs: 1 };
    },
  };
  return { backend, probes: () => probes };
}

describe('the sandbox port', () => {
  it('probes the chosen backend once, however often it is chosen', async () => {
    const { backend, probes } = fake('fake-once', { ok: true, version: 'fake 1', detail: 'fake 1', perRunUid: false });
    replaceSandboxBackend(() => backend);
    for (let i = 0; i < 3; i++) expect((await chooseSandbox(config)).backend?.name).toBe('fake-once');
    expect(probes()).toBe(1);
  });

  it('runs nothing when the backend cannot, and says why', async () => {
    const { backend } = fake('fake-refused', { ok: false, reason: 'the fake engine is down' });
    replaceSandboxBackend(() => backend);
    const r = await runCommand('echo hi', { execution: config });
    expect(r).toMatchObject({ errorCode: 'sandbox-error', backend: null });
    expect(r.error).toBe('No sandbox can run code here: the fake engine is down');
  });

  it("hands the backend the run's files, a slot's uid and the limits, and reports what it wrote", async () => {
    const seen: SandboxRequest[] = [];
    const { backend } = fake('fake-run', { ok: true, version: 'fake 1', detail: 'fake 1', perRunUid: false }, seen);
    replaceSandboxBackend(() => backend);
    const r = await runCommand('echo hi', { execution: config, chatId: 'port1', owner: 'ann' });
    expect(r).toMatchObject({ exitCode: 0, stdout: 'hi\n', backend: 'fake-run' });
    expect(r.files.map((f) => [f.name, f.status])).toEqual([['made.txt', 'created']]);
    const [request] = seen;
    expect(request?.argv).toEqual(['bash', '-c', 'echo hi']);
    expect(request?.workspace.dir).toBe(path.join(config.workspace.dir, 'port1', 'files'));
    expect(await request?.workspace.overCap()).toBeNull();
    expect(request?.uid).toBeGreaterThan(config.sandbox.uid);
    expect(request?.limits.timeoutMs).toBe(config.sandbox.timeoutMs);
  });
});
