/**
 * The shell tool's card states: a command that waits for a run slot reports `queued` (with how many are ahead),
 * then its output while it runs, then the result. Runs against the real sandbox with one slot, on bubblewrap and
 * through the piped backend (test/sandbox/).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forEachBackend, ownWorkspaces } from '../../test/sandbox/backends';
import { until } from '../../test/until';
import { DEFAULT_LIMITS } from '../config';
import { type ExecutionConfig, resolveExecutionConfig } from '../sandbox/config';
import { runCommand } from '../sandbox/run';
import { bwrapAvailability, runSlots } from '../sandbox/select';
import type { SkillToolContext } from './context';
import { commandConsent, type ShellOutput, shellTool } from './sandbox-exec';

const ready = (await bwrapAvailability(100_000)).ok;
let tmp: string;
let execution: ExecutionConfig;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-shell-tool-'));
  // One slot, and a uid range of its own so the process's other tests' slots are not this one.
  execution = resolveExecutionConfig({ sandbox: { maxConcurrentRuns: 1, uid: 120_000 } }, tmp, tmp, {});
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const ctx = (owner: string, chatId: string): SkillToolContext => ({
  skills: new Map(),
  access: new Map(),
  activated: new Set(),
  limits: DEFAULT_LIMITS,
  display: { appDir: tmp, home: tmp },
  onActivated: () => {},
  chatId,
  execution,
  shell: 'allow',
  owner,
});

describe('shell consent', () => {
  it('follows the mode: off denies, allow runs, ask waits for the person, for that exact command or its prefix', async () => {
    const input = { command: 'ls -la' };
    expect(commandConsent({ shell: 'off' }, input)).toMatchObject({ rule: 'deny' });
    expect(commandConsent({}, input)).toMatchObject({ rule: 'deny' });
    expect(commandConsent({ shell: 'allow' }, input)).toMatchObject({ rule: 'allow' });
    const ask = commandConsent({ shell: 'ask' }, input)!;
    expect(ask).toMatchObject({ rule: 'ask', always: true, subject: { kind: 'shell-command', command: 'ls -la' } });
    expect(await ask.version()).toBe('ls -la');
    // "Always allow" keeps the prefix as the person's standing grant, which covers `ls` and nothing chained to it.
    expect(ask.standing?.subject).toEqual({ kind: 'shell-prefix', prefix: 'ls' });
    expect(ask.standing?.covered([{ kind: 'shell-prefix', prefix: 'ls' }])).toBe(true);
    expect(commandConsent({ shell: 'ask' }, { command: 'ls; rm x' })!.standing?.covered([ask.standing!.subject])).toBe(
      false,
    );
    // Several lines: the exact command is asked for, with no standing offer.
    expect(commandConsent({ shell: 'ask' }, { command: 'ls\nrm x' })).toMatchObject({ always: false });
  });

  it("warns on the card about hidden characters in the command, as for a skill's text", () => {
    const plain = commandConsent({ shell: 'ask' }, { command: 'ls -la' })!;
    expect(plain.reason.split('\n')).toHaveLength(1);
    const hidden = commandConsent({ shell: 'ask' }, { command: 'echo ok\u202E #\u200Bx' })!;
    const [, warning] = hidden.reason.split('\n');
    expect(warning).toMatch(
      /^⚠ The command contains 2 hidden characters: bidirectional override U\+202E at line 1, column 8; zero-width character U\+200B/,
    );
  });
});

forEachBackend(
  'sandbox_exec card states',
  (backend) => {
    ownWorkspaces(
      backend,
      () => execution,
      () => tmp,
    );

    it('a command behind a full server shows queued, then its output, then the result', async () => {
      const busy = runCommand('sleep 1.5; echo first-done', { execution, chatId: 'busy', owner: 'ann' });
      // The first run holds the one slot before the second asks for it (a fixed wait lost that race on a busy machine).
      await until(() => (runSlots(execution).stats().running === 1 ? true : undefined));
      const states: ShellOutput[] = [];
      const run = shellTool.execute(ctx('bob', 'waiting'), { command: 'echo one; sleep 0.8; echo two' });
      for await (const state of run as AsyncIterable<ShellOutput>) states.push(state);
      expect((await busy).stdout).toBe('first-done\n');
      const kinds = states.map((s) => s.state);
      expect(kinds[0]).toBe('queued');
      expect(states[0]?.ahead).toBe(0);
      expect(kinds).toContain('running');
      expect(states.some((s) => s.state === 'running' && s.stdout === 'one\n')).toBe(true);
      expect(states.at(-1)).toMatchObject({ state: 'done', exitCode: 0, stdout: 'one\ntwo\n' });
      expect(states.at(-1)?.queuedMs).toBeGreaterThan(500);
    }, 30_000);

    it('puts the command on the run record with the skills active, its exit and its time', async () => {
      const recorded: unknown[] = [];
      const base = ctx('ann', 'recorded');
      const withRecord: SkillToolContext = {
        ...base,
        activated: new Set(['pdf', 'docx']),
        onScriptRun: (run) => {
          recorded.push(run);
        },
      };
      const run = shellTool.execute(withRecord, { command: 'exit 3' });
      for await (const _ of run as AsyncIterable<ShellOutput>);
      expect(recorded).toEqual([
        expect.objectContaining({ kind: 'command', skillName: 'pdf docx', script: 'exit 3', args: [], exitCode: 3 }),
      ]);
    }, 30_000);
  },
  !ready,
);
