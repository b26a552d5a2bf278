/**
 * The escape suite: each case is something a hostile skill script tries, run against the real bubblewrap backend,
 * and again through the piped backend (test/sandbox/), the port a second engine would implement. Every case must
 * end contained, with a clear result, and the server process must stay responsive and small.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { forEachBackend, ownWorkspaces } from '../../test/sandbox/backends';
import { measureTree } from '../workspace/usage';
import { listWorkspace, openWorkspaceFile, saveUpload, workspaceDir } from '../workspace/workspace';
import { type ExecutionConfig, resolveExecutionConfig } from './config';
import { runCommand, runSkillScript } from './run';
import { bwrapAvailability } from './select';

const SECRET = 'SERVER-SECRET-9c1e';
process.env.SKILLCHAT_ESCAPE_SECRET = SECRET;

let tmp: string;
let skill: { name: string; dir: string };
let config: ExecutionConfig;
let chat = 0;
const available = await bwrapAvailability(65534);

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-escape-'));

  skill = { name: 'hostile', dir: path.join(tmp, 'skill') };
  fs.mkdirSync(path.join(skill.dir, 'scripts'), { recursive: true });
  config = resolveExecutionConfig(
    { sandbox: { backend: 'bwrap', timeoutMs: 4000, cpuSeconds: 3, memoryMb: 512 } },
    tmp,
    tmp,
    {},
  );
  // No runtime in these runs: the suite is about the walls, not the packages.
  config.runtime.dir = path.join(tmp, 'no-runtime');
});

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function runWith(scripts: ExecutionConfig, file: string, source: string, args: string[] = []) {
  fs.writeFileSync(path.join(skill.dir, 'scripts', file), source);
  const chatId = `chat${++chat}`;
  const result = await runSkillScript(skill, `scripts/${file}`, args, { chatId, execution: scripts });
  return { ...result, chatId };
}

const run = Object.assign((file: string, source: string, args: string[] = []) => runWith(config, file, source, args), {
  withConfig: runWith,
});

forEachBackend(
  'escape suite',
  (backend) => {
    ownWorkspaces(
      backend,
      () => config,
      () => tmp,
    );

    it('cannot read /etc/shadow or /root', async () => {
      const r = await run('read.sh', 'cat /etc/shadow; ls /root; echo done');
      expect(r.stderr).toMatch(/\/etc\/shadow: No such file or directory/);
      expect(r.stdout).not.toMatch(/root:/);
      expect(r.stderr).toMatch(/cannot access '\/root'/);
      expect(r.stdout).toBe('done\n');
      // The limits prologue itself must not complain (a refused ulimit would leave a limit unset).
      expect(r.stderr).not.toMatch(/ulimit/);
    });

    it("sees none of the server's environment, in its own or in /proc/1/environ", async () => {
      const r = await run(
        'env.py',
        'import os\nprint(sorted(os.environ))\ntry:\n  print(open("/proc/1/environ","rb").read())\nexcept PermissionError:\n  print("denied")\nprint(os.getcwd())\n',
      );
      expect(r.exitCode).toBe(0);
      expect(r.stdout).not.toContain(SECRET);
      expect(r.stdout).not.toContain(tmp);
      // PID 1 is bwrap: started with an empty environment, and unreadable anyway when it runs as root.
      expect(r.stdout).toMatch(/^(b''|denied)$/m);
      expect(r.stdout).toContain('/workspace');
    });

    it('cannot open a socket', async () => {
      const r = await run(
        'net.py',
        'import socket\ntry:\n  socket.create_connection(("1.1.1.1", 80), timeout=2)\n  print("CONNECTED")\nexcept OSError as e:\n  print("refused", e.errno)\n',
      );
      expect(r.stdout).toMatch(/^refused/);
    });

    it('cannot write into the skill folder', async () => {
      const r = await run('write.sh', 'echo x > /skill/planted && echo WROTE');
      expect(r.stderr).toMatch(/Read-only file system/);
      expect(fs.existsSync(path.join(skill.dir, 'planted'))).toBe(false);
    });

    it('a symlink left in the workspace is neither listed nor served', async () => {
      const r = await run('link.sh', 'ln -s /etc/passwd leak; ln -s ../../.. up; echo ok > real.txt');
      expect(r.exitCode).toBe(0);
      expect(r.files.map((f) => f.name)).toEqual(['real.txt']);
      const files = await listWorkspace(config.workspace.dir, r.chatId);
      expect(files.map((f) => f.name)).toEqual(['real.txt']);
      expect(await openWorkspaceFile(config.workspace.dir, r.chatId, 'leak')).toBeNull();
      expect(fs.lstatSync(path.join(workspaceDir(config.workspace.dir, r.chatId), 'leak')).isSymbolicLink()).toBe(true);
    });

    it('a fork bomb is contained and the next run works', async () => {
      let ticks = 0;
      const timer = setInterval(() => ticks++, 50);
      // The wait keeps the bomb's processes alive for a while: containment must come from the process limit. It is
      // `read -t` on a FIFO opened before the bomb, not `sleep`: a fork after the bomb waits in bash's fork retries
      // (seconds, on a busy machine past the time limit), and `read` and `echo` are builtins.
      const r = await run('bomb.sh', 'mkfifo wait; exec 3<>wait; :(){ :|:& };:; read -t 1 -u 3; echo survived');
      clearInterval(timer);
      expect(r.durationMs).toBeLessThan(8000);
      expect(r.stderr).toMatch(/Resource temporarily unavailable/);
      expect(r.stdout).toBe('survived\n');
      expect(ticks).toBeGreaterThan(r.durationMs / 50 / 4); // the server's event loop kept running
      // The result names the limit (it used to end "exit 254" with no reason).
      expect(r.limit).toBe('processes');
      expect(r.error).toMatch(/limit of \d+ processes/);
      const after = await run('ok.sh', 'echo fine');
      expect(after.stdout).toBe('fine\n');
    }, 20_000);

    it('a memory hog is stopped with a memory error', async () => {
      const r = await run('hog.py', 'x = bytearray(2 * 1024 ** 3)\nprint("ALLOCATED")\n');
      expect(r.stdout).not.toContain('ALLOCATED');
      expect(r.error).toBe('the script used more memory than allowed');
    });

    it('memfd pages do not take a run past its memory (counted by its cgroup, or memfd refused without one)', async () => {
      // The red-team run's reproduction: 3 GB of memfd in a run limited to 512 MB, past RLIMIT_AS.
      const r = await run(
        'memfd.py',
        "import os\nb = b'x' * (64 << 20)\nfs = [os.memfd_create('m') for _ in range(16)]\n[os.write(f, b) for f in fs for _ in range(3)]\nprint('HELD')\n",
      );
      expect(r.stdout).not.toContain('HELD');
      if (r.limit === 'memory') expect(r.error).toMatch(/more than its 512 MB of memory/);
      else expect(r.stderr).toMatch(/PermissionError: \[Errno 1\] Operation not permitted/);
    });

    it('an infinite loop is stopped by the CPU limit', async () => {
      const cpu = { ...config, sandbox: { ...config.sandbox, cpuSeconds: 1, timeoutMs: 15_000 } };
      fs.writeFileSync(path.join(skill.dir, 'scripts', 'loop.py'), 'while True:\n  pass\n');
      const r = await runSkillScript(skill, 'scripts/loop.py', [], { chatId: 'loopchat', execution: cpu });
      expect(r.errorCode).toBe('limit-exceeded');
      expect(r.error).toMatch(/CPU time/);
    }, 20_000);

    it('a sleeping script is stopped at the wall-clock limit', async () => {
      const r = await run('sleep.sh', 'sleep 60');
      expect(r).toMatchObject({ timedOut: true, errorCode: 'timeout', exitCode: 124 });
    }, 10_000);

    it('200 MB of output is cut at the cap and the server stays small', async () => {
      globalThis.gc?.();
      const before = process.memoryUsage().rss;
      const r = await run(
        'flood.py',
        'import sys\nchunk = "y" * 65536\nfor _ in range(3200):\n  sys.stdout.write(chunk)\n',
      );
      const grew = process.memoryUsage().rss - before;
      expect(r).toMatchObject({ truncated: true, errorCode: 'output-limit' });
      expect(r.stdout.length).toBeLessThanOrEqual(config.sandbox.maxOutputBytes);
      expect(grew).toBeLessThan(64 * 1024 * 1024);
    }, 20_000);

    it('cannot write a file over the workspace limit', async () => {
      const small = { ...config, workspace: { ...config.workspace, maxWorkspaceBytes: 1024 * 1024 } };
      fs.writeFileSync(path.join(skill.dir, 'scripts', 'big.sh'), 'head -c 5000000 /dev/zero > big.bin; echo rc=$?');
      const r = await runSkillScript(skill, 'scripts/big.sh', [], { chatId: 'bigchat', execution: small });
      expect(r.stderr).toMatch(/File size limit exceeded/);
      expect(r.files[0]?.size ?? 0).toBeLessThanOrEqual(1024 * 1024);
    });

    it('many files, each under the per-file cap, are stopped at the workspace total and taken back', async () => {
      const cap = 1024 * 1024;
      const small = { ...config, workspace: { ...config.workspace, maxWorkspaceBytes: cap } };
      const chatId = 'fillchat';
      const upload = await saveUpload(small.workspace.dir, chatId, 'mine.bin', new Uint8Array(300 * 1024), {
        ...small.workspace,
      });
      expect(upload.ok).toBe(true);
      // 128 KiB a file, one every 20 ms: each far under RLIMIT_FSIZE, the total past the cap within ~150 ms.
      fs.writeFileSync(
        path.join(skill.dir, 'scripts', 'fill.sh'),
        'i=0; while [ $i -lt 1000 ]; do head -c 131072 /dev/zero > f$i.bin; i=$((i+1)); sleep 0.02; done; echo finished',
      );
      const r = await runSkillScript(skill, 'scripts/fill.sh', [], { chatId, execution: small });
      expect(r.errorCode).toBe('limit-exceeded');
      expect(r.error).toBe(
        `the workspace holds more than ${cap} bytes (the workspace limit); the files this run created were removed; the run was stopped`,
      );
      expect(r.stdout).not.toContain('finished');
      expect(r.durationMs).toBeLessThan(3000); // stopped by the watch, not the 4 s wall clock
      expect(r.files).toEqual([]);
      const dir = workspaceDir(small.workspace.dir, chatId);
      expect(fs.readdirSync(dir)).toEqual(['mine.bin']); // the upload stays
      expect((await measureTree(dir, { maxBytes: cap, maxEntries: 100 })).over).toBeNull();
      fs.writeFileSync(path.join(skill.dir, 'scripts', 'after.sh'), 'echo fine > out.txt; cat out.txt');
      const after = await runSkillScript(skill, 'scripts/after.sh', [], { chatId, execution: small });
      expect(after).toMatchObject({ exitCode: 0, stdout: 'fine\n' });
      expect(after.error).toBeUndefined();
    }, 20_000);

    it('a burst written between two checks is still taken back after the run', async () => {
      const cap = 1024 * 1024;
      const small = { ...config, workspace: { ...config.workspace, maxWorkspaceBytes: cap } };
      fs.writeFileSync(
        path.join(skill.dir, 'scripts', 'burst.sh'),
        'for i in 1 2 3 4; do head -c 524288 /dev/zero > b$i.bin; done; echo wrote',
      );
      const r = await runSkillScript(skill, 'scripts/burst.sh', [], { chatId: 'burstchat', execution: small });
      expect(r.errorCode).toBe('limit-exceeded');
      expect(r.error).toMatch(/more than 1048576 bytes .*the files this run created were removed/);
      expect(fs.readdirSync(workspaceDir(small.workspace.dir, 'burstchat'))).toEqual([]);
    });

    it('many tiny files stop at the entry cap', async () => {
      const few = { ...config, workspace: { ...config.workspace, maxWorkspaceEntries: 500 } };
      const r = await run.withConfig(
        few,
        'tiny.py',
        'for i in range(1000000):\n  open(f"t{i}", "w").close()\nprint("finished")\n',
      );
      expect(r.errorCode).toBe('limit-exceeded');
      expect(r.error).toMatch(/more than 500 files and folders \(the workspace limit\).*removed.*stopped/);
      expect(r.stdout).not.toContain('finished');
      // Stopped by the entry cap, long before the 30 s wall limit (the bound leaves room for a loaded machine).
      expect(r.durationMs).toBeLessThan(10_000);
      expect(fs.readdirSync(workspaceDir(few.workspace.dir, r.chatId))).toEqual([]);
    }, 60_000);

    it('a folder tree deeper than PATH_MAX is bounded and removed', async () => {
      const few = { ...config, workspace: { ...config.workspace, maxWorkspaceEntries: 500 } };
      // mkdir + chdir goes deeper than any path the server could name; the walk and the cleanup must cope.
      const r = await run.withConfig(
        few,
        'deep.py',
        'import os\nfor i in range(1000000):\n  os.mkdir("d")\n  os.chdir("d")\nprint("finished")\n',
      );
      expect(r.errorCode).toBe('limit-exceeded');
      // Whichever comes first: the entries cap, or the depth past which the walk counts the tree as over.
      expect(r.error).toMatch(/more than 500 files and folders|folders nested more than 256 deep/);
      expect(r.stdout).not.toContain('finished');
      expect(fs.readdirSync(workspaceDir(few.workspace.dir, r.chatId))).toEqual([]);
      const after = await run('ok2.sh', 'echo fine');
      expect(after.stdout).toBe('fine\n');
    }, 60_000);

    it('is killed on abort (Stop)', async () => {
      const controller = new AbortController();
      fs.writeFileSync(path.join(skill.dir, 'scripts', 'wait.sh'), 'sleep 30');
      setTimeout(() => controller.abort(), 300);
      const r = await runSkillScript(skill, 'scripts/wait.sh', [], {
        chatId: 'stopchat',
        execution: config,
        signal: controller.signal,
      });
      expect(r).toMatchObject({ errorCode: 'aborted', exitCode: 130 });
      // Killed at the abort, not when `sleep 30` ends.
      expect(r.durationMs).toBeLessThan(10_000);
    });
  },
  !available.ok,
);

/** The model's shell (`sandbox_exec`) takes the same path: the same walls for a command line as for a script. */
forEachBackend(
  'escape suite, through the shell tool',
  (backend) => {
    ownWorkspaces(
      backend,
      () => config,
      () => tmp,
    );
    const sh = (command: string, chatId: string, over: Partial<Parameters<typeof runCommand>[1]> = {}) =>
      runCommand(command, { chatId, execution: config, ...over });

    it('sees no host secrets, no network, no server environment', async () => {
      const r = await sh(
        'cat /etc/shadow; ls /root; env | grep -c SKILLCHAT_ESCAPE_SECRET; (exec 3<>/dev/tcp/127.0.0.1/22) 2>&1 | head -1; echo done',
        'shell1',
      );
      expect(r.stdout).not.toContain(SECRET);
      expect(r.stderr).toMatch(/\/etc\/shadow: No such file or directory/);
      expect(r.stdout).toMatch(/^0\n/m);
      expect(r.stdout).toMatch(/done\n$/);
    });

    it('mounts activated skills read-only at /skills/<name> and writes only the workspace', async () => {
      fs.writeFileSync(path.join(skill.dir, 'scripts', 'hi.sh'), 'echo "hi from $0"');
      const r = await sh(
        'bash /skills/hostile/scripts/hi.sh; echo x > /skills/hostile/planted; echo y > out.txt',
        'shell2',
        {
          skills: [skill],
        },
      );
      expect(r.stdout).toContain('hi from /skills/hostile/scripts/hi.sh');
      expect(r.stderr).toMatch(/Read-only file system/);
      expect(fs.existsSync(path.join(skill.dir, 'planted'))).toBe(false);
      expect(r.files.map((f) => f.name)).toEqual(['out.txt']);
    });

    it('refuses a nested user namespace (unshare -r) and runs under a seccomp filter', async () => {
      const r = await sh('unshare -r id; echo "exit=$?"; grep Seccomp: /proc/self/status', 'shell3');
      expect(r.stdout).not.toMatch(/uid=0/);
      expect(r.stdout).toMatch(/exit=[1-9]/);
      expect(r.stdout).toMatch(/Seccomp:\s+2/);
    });

    // io_uring is a second way into most system calls, past a filter that sees only the first. 425 is
    // io_uring_setup on x86_64; a descriptor back (r >= 0) is the ring, -1 with errno 1 is EPERM.
    it.skipIf(process.arch !== 'x64')('refuses io_uring (io_uring_setup fails with EPERM)', async () => {
      const py =
        'import ctypes; libc = ctypes.CDLL(None, use_errno=True); params = ctypes.create_string_buffer(120); ' +
        'r = libc.syscall(425, 4, params); print("io_uring", r, ctypes.get_errno())';
      const r = await sh(`python3 -c '${py}'`, 'shell5');
      expect(r.stdout).toBe('io_uring -1 1\n');
    });

    it('one chat holding 70 processes does not starve another chat', async () => {
      const many = { ...config, sandbox: { ...config.sandbox, timeoutMs: 20_000, maxProcesses: 64 } };
      const hog = sh('for i in $(seq 70); do sleep 6 & done; wait; echo hog-done', 'hog', {
        execution: many,
        owner: 'alice',
      });
      // Let the hog reach its process limit before the other chat starts.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const other = await sh('bash -c "echo child" && python3 -c "import os; print(os.getpid() > 0)"', 'other', {
        execution: many,
        owner: 'bob',
      });
      expect(other).toMatchObject({ exitCode: 0, stdout: 'child\nTrue\n' });
      expect(other.error).toBeUndefined();
      const held = await hog;
      expect(held.limit).toBe('processes');
      expect(held.stderr).toMatch(/Resource temporarily unavailable/);
    }, 40_000);

    it('a command line with NUL or over the size cap is refused before it runs', async () => {
      expect(await sh('echo a\0b', 'shell4')).toMatchObject({ errorCode: 'invalid-command', exitCode: 2 });
      expect(await sh('x'.repeat(100_001), 'shell4')).toMatchObject({ errorCode: 'invalid-command' });
      expect(await sh('   ', 'shell4')).toMatchObject({ errorCode: 'invalid-command' });
    });
  },
  !available.ok,
);
