/**
 * A run's way out (bwrap-egress.ts) over the real bubblewrap backend and the installed runtime, and again through
 * the piped backend: every usual client inside (curl, Python urllib, requests, httpx, Node's fetch) reaches loopback
 * upstreams through a stand-in for the run's proxy on a Unix socket, over HTTP and over HTTPS with verification on;
 * a secret variable is in the run's environment and never on bwrap's command line; without egress nothing leaves.
 * Needs `bin/skills runtime install` (`npm test` does it first).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forEachBackend, ownWorkspaces } from '../../test/sandbox/backends';
import {
  startTestProxy,
  startTestUpstreams,
  type TestProxy,
  type TestUpstreams,
} from '../../test/sandbox/egress-proxy';
import type { RunEgress, SandboxEgress } from '../egress/types';
import { runtimeInstalled } from '../toolchain/skills-runtime';
import { folderFiles } from '../workspace/run-files';
import { bwrapArgs, isRoot } from './bwrap';
import { secretEnvArgs } from './bwrap-egress';
import { type ExecutionConfig, resolveExecutionConfig } from './config';
import { DEFAULT_SANDBOX_LIMITS } from './port';
import { runCommand } from './run';
import { bwrapAvailability } from './select';

const APP = path.join(import.meta.dirname, '..', '..');
const RUNTIME = process.env.SKILLCHAT_RUNTIME_DIR ?? path.join(APP, 'data', 'runtime');
const SECRET = 'sk-egress-test-7f3a9c1d2e';

const available = await bwrapAvailability(65534);
const hasRuntime = await runtimeInstalled(RUNTIME);
if (!hasRuntime) console.warn(`skills runtime not installed at ${RUNTIME}: run bin/skills runtime install`);

let tmp: string;
let config: ExecutionConfig;
let proxy: TestProxy;
let upstreams: TestUpstreams;
let egress: SandboxEgress;
let chat = 0;

beforeAll(async () => {
  if (!available.ok || !hasRuntime) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-egress-'));
  config = resolveExecutionConfig({ sandbox: { backend: 'bwrap' } }, tmp, tmp, { SKILLCHAT_RUNTIME_DIR: RUNTIME });
  const certs = path.join(tmp, 'certs');
  fs.mkdirSync(certs);
  upstreams = await startTestUpstreams(certs);
  proxy = await startTestProxy(tmp, { 'upstream.test': '127.0.0.1', 'tls.test': '127.0.0.1' });
  // What the operator's proxy would write: the system roots plus the CA it trusts (here the upstream's own).
  const trustBundle = path.join(tmp, 'trust-bundle.pem');
  fs.writeFileSync(trustBundle, `${fs.readFileSync('/etc/ssl/certs/ca-certificates.crt', 'utf8')}\n${upstreams.caPem}`);
  const ca = path.join(tmp, 'ca.pem');
  fs.writeFileSync(ca, upstreams.caPem);
  fs.chmodSync(trustBundle, 0o644);
  fs.chmodSync(ca, 0o644);
  egress = {
    socket: proxy.socket,
    trustBundle,
    ca,
    env: { PLACEHOLDER_TOKEN: 'skillchat-placeholder' },
    secretEnv: {},
  };
});

afterAll(async () => {
  await proxy?.close();
  await upstreams?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const plainUrl = (p: string) => `http://upstream.test:${upstreams.httpPort}/${p}`;
const tlsUrl = (p: string) => `https://tls.test:${upstreams.httpsPort}/${p}`;

/** The run's way out as run.ts opens it, handing the backend `sandbox` as it is (no redaction, no record). */
function wayOut(sandbox: SandboxEgress): RunEgress {
  return {
    open: async () => ({
      sandbox,
      redact: (text) => text,
      redactStream: () => ({ push: (chunk) => chunk, flush: () => '' }),
      close: async () => [],
    }),
  };
}

function run(
  command: string,
  options: { egress?: SandboxEgress; onOutput?: (stream: 'stdout' | 'stderr', text: string) => void } = {},
) {
  const { egress: sandbox, ...rest } = options;
  return runCommand(command, {
    chatId: `egress${++chat}`,
    execution: config,
    ...rest,
    ...(sandbox ? { egress: wayOut(sandbox) } : {}),
  });
}

/** Every client gets both upstreams' answers; the proxy saw the plain request in absolute form and TLS as CONNECT. */
function expectBoth(r: Awaited<ReturnType<typeof run>>, name: string) {
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  expect(r.stdout).toBe(`http upstream says hello to /${name}\nhttps upstream says hello to /${name}\n`);
  expect(proxy.seen).toContain(`GET ${plainUrl(name)}`);
  expect(proxy.seen).toContain(`CONNECT tls.test:${upstreams.httpsPort}`);
}

forEachBackend(
  'a run with egress',
  (backend) => {
    ownWorkspaces(
      backend,
      () => config,
      () => tmp,
    );

    it('reaches the upstreams with curl, over HTTP and over verified HTTPS', async () => {
      const name = `curl-${backend}`;
      const r = await run(`curl -sS --fail ${plainUrl(name)} && curl -sS --fail ${tlsUrl(name)}`, { egress });
      expectBoth(r, name);
    });

    it('reaches them with Python urllib', async () => {
      const name = `urllib-${backend}`;
      const script = `import urllib.request as u\nfor url in ${JSON.stringify([plainUrl(name), tlsUrl(name)])}:\n    print(u.urlopen(url, timeout=10).read().decode(), end="")\n`;
      const r = await run(`python3 - <<'EOF'\n${script}EOF`, { egress });
      expectBoth(r, name);
    });

    it('reaches them with requests and httpx (certifi bundle, verification on)', async () => {
      for (const [lib, get] of [
        ['requests', 'requests.get(url, timeout=10)'],
        ['httpx', 'httpx.get(url, timeout=10)'],
      ] as const) {
        const name = `${lib}-${backend}`;
        const script = `import ${lib}\nfor url in ${JSON.stringify([plainUrl(name), tlsUrl(name)])}:\n    r = ${get}\n    r.raise_for_status()\n    print(r.text, end="")\n`;
        // No REQUESTS_CA_BUNDLE or SSL_CERT_FILE: the bundle bound over certifi's cacert.pem must do on its own.
        const r = await run(`unset REQUESTS_CA_BUNDLE SSL_CERT_FILE CURL_CA_BUNDLE; python3 - <<'EOF'\n${script}EOF`, {
          egress,
        });
        expectBoth(r, name);
      }
    });

    it("reaches them with Node's built-in fetch from an ES module in the workspace", async () => {
      const name = `fetch-${backend}`;
      const module = `for (const url of ${JSON.stringify([plainUrl(name), tlsUrl(name)])}) {\n  const res = await fetch(url);\n  if (!res.ok) throw new Error(String(res.status));\n  process.stdout.write(await res.text());\n}\n`;
      const r = await run(`cat > fetch.mjs <<'EOF'\n${module}EOF\nnode fetch.mjs`, { egress });
      expectBoth(r, name);
    });

    it('gets a refusal from the proxy for a host it does not serve', async () => {
      const r = await run('curl -sS http://elsewhere.test/x', { egress });
      expect(r.stdout).toBe('refused: elsewhere.test\n');
      expect(proxy.seen).toContain('GET http://elsewhere.test/x');
    });

    it('has a secret variable in its environment and never on a command line on the host', async () => {
      let cmdlines: string[] | null = null;
      const r = await run('printenv SKILL_TOKEN; sleep 1; echo done', {
        egress: { ...egress, secretEnv: { SKILL_TOKEN: SECRET } },
        onOutput: (_stream, text) => {
          // The run is going: every process's command line, bwrap's first.
          if (text.includes(SECRET) && cmdlines === null) cmdlines = commandLines();
        },
      });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(`${SECRET}\ndone\n`);
      expect(cmdlines).not.toBeNull();
      const all = cmdlines as unknown as string[];
      const bwraps = all.filter((c) => c.startsWith('/usr/bin/bwrap') && c.includes('--args'));
      expect(bwraps.length).toBeGreaterThan(0);
      for (const line of all) expect(line).not.toContain(SECRET);
      // The forwarder ran beside the command, and went with the sandbox's PID namespace.
      const forwarders = (lines: string[]) => lines.filter((c) => c.includes('/egress/forward.py /run/skillchat'));
      expect(forwarders(all).length).toBeGreaterThan(0);
      expect(forwarders(commandLines())).toEqual([]);
    });

    it.runIf(isRoot())(
      'as root, reaches a socket of the sandbox gid (0660) in a 0700 folder, and not one only root may use',
      async () => {
        const dir = fs.mkdtempSync(path.join(tmp, 'private-'));
        const hosts = { 'upstream.test': '127.0.0.1' };
        const shared = await startTestProxy(dir, hosts, { name: 'gid.sock', mode: 0o660, gid: config.sandbox.uid });
        const own = await startTestProxy(dir, hosts, { name: 'root.sock', mode: 0o600 });
        try {
          const curl = `curl -sS ${plainUrl(`modes-${backend}`)}`;
          const ok = await run(curl, { egress: { ...egress, socket: shared.socket } });
          expect(ok.stdout).toBe(`http upstream says hello to /modes-${backend}\n`);
          const refused = await run(curl, { egress: { ...egress, socket: own.socket } });
          expect(refused.exitCode).not.toBe(0);
          expect(own.seen).toEqual([]);
        } finally {
          await Promise.all([shared.close(), own.close()]);
        }
      },
    );

    it('passes the non-secret variables and keeps the offline installer defaults', async () => {
      const r = await run('echo "$PLACEHOLDER_TOKEN $http_proxy $NO_PROXY $PIP_NO_INDEX"', { egress });
      expect(r.stdout).toBe('skillchat-placeholder http://127.0.0.1:3128 localhost,127.0.0.1,::1 1\n');
    });
  },
  !available.ok || !hasRuntime,
);

forEachBackend(
  'a run without egress',
  (backend) => {
    ownWorkspaces(
      backend,
      () => config,
      () => tmp,
    );

    it('reaches nothing: the same curl fails and the proxy sees nothing', async () => {
      const before = proxy.seen.length;
      const r = await run(
        `curl -sS --max-time 5 ${plainUrl(`offline-${backend}`)}; echo "exit $?"; env | grep -ic proxy`,
      );
      expect(r.stdout).toMatch(/^exit [1-9]\d*\n0\n$/);
      expect(r.stderr).toMatch(/Could not resolve host|Failed to connect|Couldn't connect/);
      const direct = await run(
        'curl -sS --max-time 5 --proxy http://127.0.0.1:3128 http://upstream.test/; echo "exit $?"',
      );
      expect(direct.stdout).toMatch(/^exit [1-9]\d*\n$/);
      expect(proxy.seen.length).toBe(before);
    });
  },
  !available.ok || !hasRuntime,
);

/** Every process's command line, arguments joined by spaces (what any host user can read). */
function commandLines(): string[] {
  const lines: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      lines.push(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' '));
    } catch {
      // Gone meanwhile.
    }
  }
  return lines;
}

describe('bwrapArgs with egress', () => {
  const request = (secretEnv: Record<string, string>) => ({
    argv: ['true'],
    mounts: [],
    workspace: folderFiles('/tmp/ws', { maxBytes: 1, maxEntries: 1 }),
    limits: DEFAULT_SANDBOX_LIMITS,
    uid: 100_001,
    egress: { socket: '/s/run.sock', trustBundle: '/s/bundle.pem', ca: '/s/ca.pem', env: {}, secretEnv },
  });

  it('binds the socket, the bundle and the CA, and sends secrets through --args after the filter fd', () => {
    const setup = { runtimeDir: '/rt', seccompFile: '/rt/seccomp.bpf', egressRuntimeDir: '/rt' };
    const { args, secretArgs } = bwrapArgs(request({ TOKEN: SECRET }), {}, setup);
    const joined = args.join(' ');
    expect(joined).toContain('--bind /s/run.sock /run/skillchat/egress.sock');
    expect(joined).toContain('--ro-bind /s/bundle.pem /etc/ssl/certs/ca-certificates.crt');
    expect(joined).toContain('--ro-bind /s/ca.pem /etc/ssl/certs/skillchat-ca.pem');
    expect(joined).toContain('--args 4');
    expect(joined).toContain('--unshare-net');
    expect(joined).toContain(
      '--setenv NODE_OPTIONS --disable-wasm-trap-handler --require /opt/skillchat-runtime/egress/node-preload.cjs',
    );
    expect(joined).not.toContain(SECRET);
    expect(secretArgs?.toString()).toBe(`--setenv\0TOKEN\0${SECRET}\0`);
  });

  it('has no --args without secrets, and none of it without egress', () => {
    const setup = { runtimeDir: null, seccompFile: null, egressRuntimeDir: '/rt' };
    const withEgress = bwrapArgs(request({}), {}, setup);
    expect(withEgress.secretArgs).toBeNull();
    expect(withEgress.args).not.toContain('--args');
    expect(withEgress.args.join(' ')).toContain('--ro-bind /rt/egress /opt/skillchat-runtime/egress');
    // Without the runtime's venv and packages there is no preload to load: Node keeps only the base options.
    expect(withEgress.args.join(' ')).toContain('--setenv NODE_OPTIONS --disable-wasm-trap-handler --');
    expect(withEgress.args.join(' ')).not.toContain('node-preload');
    const { egress: _, ...plain } = request({});
    const without = bwrapArgs(plain, {}, { runtimeDir: '/rt', seccompFile: null });
    // Up to `--`: bwrap's own options (the prologue after it only starts a forwarder when told to).
    expect(without.args.slice(0, without.args.indexOf('--')).join(' ')).not.toMatch(/egress|proxy|ssl/i);
  });

  it('refuses a secret that is not a variable name', () => {
    expect(() => secretEnvArgs({ 'A=B': 'x' })).toThrow(/not a variable name/);
  });
});
