/**
 * Package installs (`runtime.installs`) over the real bubblewrap backend, the real per-run proxy (run-egress.ts)
 * and a package index served here on loopback: a PEP 503 "simple" index with one tiny wheel, and an npm registry
 * with one tiny package, both at `index.test` (the proxy's resolver maps it to 127.0.0.1, which `network.private`
 * allows). With `allow`, `pip install` and `npm install` reach it and land in the chat's own layer and workspace,
 * a later run of the chat imports what they installed, another chat does not see it, and anything but GET and HEAD
 * to the index is refused by the proxy. With `off`, `pip install` fails at once with the no-network hint.
 * Needs `bin/skills runtime install`.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resolver } from '../egress/address';
import { type EgressConfig, networkConfigSchema } from '../egress/config';
import { runEgress } from '../egress/run-egress';
import { runtimeInstalled } from '../toolchain/skills-runtime';
import { layerDir } from '../workspace/folders';
import { deleteWorkspace } from '../workspace/workspace';
import { type ExecutionConfig, resolveExecutionConfig } from './config';
import { installHosts } from './installs';
import { runCommand } from './run';
import { bwrapAvailability } from './select';

const APP = path.join(import.meta.dirname, '..', '..');
const RUNTIME = process.env.SKILLCHAT_RUNTIME_DIR ?? path.join(APP, 'data', 'runtime');
const available = await bwrapAvailability(65534);
const hasRuntime = await runtimeInstalled(RUNTIME);

const WHEEL = 'skillchat_probe-1.0-py3-none-any.whl';
const TARBALL = 'skillchat-probe-1.0.0.tgz';

/** A pure-Python wheel: a zip of the package and its dist-info (METADATA, WHEEL, RECORD), made with zipfile. */
function buildWheel(file: string): void {
  const script = `
import base64, hashlib, sys, zipfile
files = {
    "skillchat_probe/__init__.py": b"VALUE = 'probe installed'\\n",
    "skillchat_probe-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\\nName: skillchat-probe\\nVersion: 1.0\\n",
    "skillchat_probe-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
}
record = ""
for name, data in files.items():
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record += f"{name},sha256={digest},{len(data)}\\n"
record += "skillchat_probe-1.0.dist-info/RECORD,,\\n"
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for name, data in files.items():
        z.writestr(name, data)
    z.writestr("skillchat_probe-1.0.dist-info/RECORD", record)
`;
  execFileSync('/usr/bin/python3', ['-c', script, file]);
}

/** An npm package tarball: package/package.json and package/index.js, gzipped. */
function buildTarball(dir: string, file: string): void {
  const pkg = path.join(dir, 'package');
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(
    path.join(pkg, 'package.json'),
    JSON.stringify({ name: 'skillchat-probe', version: '1.0.0', main: 'index.js' }),
  );
  fs.writeFileSync(path.join(pkg, 'index.js'), "module.exports = 'npm probe installed';\n");
  execFileSync('tar', ['czf', file, '-C', dir, 'package']);
}

interface Index {
  port: number;
  /** `METHOD /path` of every request the index received. */
  seen: string[];
  close(): Promise<void>;
}

async function startIndex(files: string): Promise<Index> {
  const wheel = fs.readFileSync(path.join(files, WHEEL));
  const tarball = fs.readFileSync(path.join(files, TARBALL));
  const seen: string[] = [];
  let port = 0;
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const url = req.url ?? '';
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.end('accepted'); // a refusal must come from the proxy, never from here
    } else if (url === '/simple/skillchat-probe/') {
      const sha = createHash('sha256').update(wheel).digest('hex');
      res.setHeader('content-type', 'text/html');
      res.end(`<!DOCTYPE html><html><body><a href="/files/${WHEEL}#sha256=${sha}">${WHEEL}</a></body></html>`);
    } else if (url === `/files/${WHEEL}`) {
      res.end(wheel);
    } else if (url === '/npm/skillchat-probe') {
      const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
      const version = {
        name: 'skillchat-probe',
        version: '1.0.0',
        main: 'index.js',
        dist: { tarball: `http://index.test:${port}/npm/skillchat-probe/-/${TARBALL}`, integrity },
      };
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({ name: 'skillchat-probe', 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': version } }),
      );
    } else if (url === `/npm/skillchat-probe/-/${TARBALL}`) {
      res.end(tarball);
    } else {
      res.statusCode = 404;
      res.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    port,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const resolve: Resolver = async (name) => {
  if (name !== 'index.test') throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return [{ address: '127.0.0.1', family: 4 }];
};

let tmp: string;
let index: Index;
let allow: ExecutionConfig;
let off: ExecutionConfig;
let egressConfig: EgressConfig;

beforeAll(async () => {
  if (!available.ok || !hasRuntime) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-installs-'));
  const files = path.join(tmp, 'index');
  fs.mkdirSync(files);
  buildWheel(path.join(files, WHEEL));
  buildTarball(path.join(tmp, 'npm-src'), path.join(files, TARBALL));
  index = await startIndex(files);
  const indexes = { pip: [`http://index.test:${index.port}/simple`], npm: `http://index.test:${index.port}/npm/` };
  const settings = (installs: 'allow' | 'off') =>
    resolveExecutionConfig(
      { sandbox: { backend: 'bwrap' }, runtime: { installs, indexes }, workspace: { dir: path.join(tmp, installs) } },
      tmp,
      tmp,
      { SKILLCHAT_RUNTIME_DIR: RUNTIME },
    );
  allow = settings('allow');
  off = settings('off');
  egressConfig = {
    network: networkConfigSchema.parse({ private: ['127.0.0.1/32'] }),
    secrets: {},
    dir: path.join(tmp, 'egress'),
  };
});

afterAll(async () => {
  await index?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** A command in `chatId` as a turn runs it: the run's proxy grants the indexes of `config` and nothing else. */
function run(command: string, chatId: string, config: ExecutionConfig) {
  const installs = config.runtime.installs === 'allow';
  return runCommand(command, {
    chatId,
    execution: config,
    egress: runEgress({
      config: egressConfig,
      skills: [],
      permission: () => 'allow',
      secrets: async () => [],
      record: { db: null, chatId, userId: null },
      ...(installs ? { installs: () => installHosts(config) } : {}),
      resolve,
    }),
  });
}

describe.skipIf(!available.ok || !hasRuntime)('package installs in a run', () => {
  it('with allow, pip install reaches the index and lands in the chat layer; a later run imports it', async () => {
    const installed = await run('pip install skillchat-probe', 'pip-chat', allow);
    expect(installed.stderr).not.toMatch(/ERROR/);
    expect(installed.exitCode).toBe(0);
    expect(installed.stdout).toMatch(/Successfully installed skillchat-probe-1\.0/);
    expect(index.seen).toContain('GET /simple/skillchat-probe/');
    expect(index.seen).toContain(`GET /files/${WHEEL}`);
    const line = installed.egress?.find((l) => l.host === 'index.test');
    expect(line).toMatchObject({ port: index.port, allowed: true });
    const layer = layerDir(allow.workspace.dir, 'pip-chat');
    expect(fs.existsSync(path.join(layer, 'python', 'skillchat_probe', '__init__.py'))).toBe(true);

    const later = await run(`python3 -c 'import skillchat_probe; print(skillchat_probe.VALUE)'`, 'pip-chat', allow);
    expect(later.stderr).toBe('');
    expect(later.stdout).toBe('probe installed\n');

    // Another chat has a layer of its own: nothing of this one.
    const other = await run(`python3 -c 'import skillchat_probe'`, 'pip-other', allow);
    expect(other.exitCode).not.toBe(0);
    expect(other.stderr).toMatch(/No module named 'skillchat_probe'/);
    expect(other.hint).toMatch(/pip install skillchat_probe/);

    // Deleting the chat deletes its layer.
    await deleteWorkspace(allow.workspace.dir, 'pip-chat');
    expect(fs.existsSync(layer)).toBe(false);
  });

  it('with allow, the proxy refuses a POST to the index (method), and the index never sees it', async () => {
    const before = index.seen.length;
    const r = await run(
      `curl -sS -o /dev/null -D - -X POST --data secret=1 http://index.test:${index.port}/simple/`,
      'post-chat',
      allow,
    );
    expect(r.stdout).toMatch(/^HTTP\/1\.1 403/);
    expect(r.stdout.toLowerCase()).toContain('x-skillchat-egress: method');
    expect(index.seen.slice(before)).toEqual([]);
    const line = r.egress?.find((l) => l.host === 'index.test');
    expect(line).toMatchObject({ allowed: false });
    expect(line?.reason).toMatch(/GET and HEAD only/);
  });

  it('with allow, npm install reaches the registry; a later run requires the package, and -g goes to the layer', async () => {
    const installed = await run('npm install skillchat-probe && npm install -g skillchat-probe', 'npm-chat', allow);
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect(index.seen).toContain('GET /npm/skillchat-probe');
    expect(index.seen).toContain(`GET /npm/skillchat-probe/-/${TARBALL}`);
    const layer = layerDir(allow.workspace.dir, 'npm-chat');
    expect(fs.existsSync(path.join(layer, 'node', 'lib', 'node_modules', 'skillchat-probe', 'index.js'))).toBe(true);

    const later = await run(
      `node -e "console.log(require('skillchat-probe'))" && cd /tmp && node -e "console.log(require('skillchat-probe'))"`,
      'npm-chat',
      allow,
    );
    expect(later.stderr).toBe('');
    expect(later.stdout).toBe('npm probe installed\nnpm probe installed\n');
  });

  it('with allow, what a run adds to the layer counts against the room its files have, and stops it past it', async () => {
    const small = resolveExecutionConfig(
      {
        runtime: { installs: 'allow', indexes: { pip: [], findLinks: [] } },
        workspace: { dir: path.join(tmp, 'small'), maxWorkspaceBytes: 200 * 1024 },
      },
      tmp,
      tmp,
      { SKILLCHAT_RUNTIME_DIR: RUNTIME },
    );
    const r = await runCommand(
      'for i in 1 2 3; do head -c 100000 /dev/urandom > /opt/skillchat-layer/f$i; done; sleep 6; echo done',
      { chatId: 'small-chat', owner: 'ann', execution: small },
    );
    expect(r.errorCode).toBe('limit-exceeded');
    expect(r.error).toMatch(/the workspace and the packages this run installed hold more than/);
    expect(r.stdout).not.toContain('done');
    // The next run has only the room its layer leaves: none.
    const next = await runCommand('head -c 150000 /dev/urandom > f.bin && echo done', {
      chatId: 'small-chat',
      owner: 'ann',
      execution: small,
    });
    expect(next.stdout).toBe('');
    expect(next.stderr).toMatch(/File size limit exceeded/);
  });

  it('with off, pip install fails at once with the no-network hint, and nothing reaches the index', async () => {
    const before = index.seen.length;
    const r = await run('pip install skillchat-probe', 'off-chat', off);
    expect(r.exitCode).not.toBe(0);
    expect(r.hint).toMatch(/The sandbox has no network/);
    expect(r.durationMs).toBeLessThan(15_000);
    expect(r.egress).toBeUndefined();
    expect(index.seen.slice(before)).toEqual([]);
    expect(fs.existsSync(layerDir(off.workspace.dir, 'off-chat'))).toBe(false);
  });

  it('grants the index hosts only with allow, which is not the default', async () => {
    expect(await installHosts(allow)).toEqual([`index.test:${index.port}`]);
    expect(await installHosts(off)).toEqual([]);
    expect(resolveExecutionConfig({}, tmp, tmp).runtime.installs).toBe('off');
  });
});
