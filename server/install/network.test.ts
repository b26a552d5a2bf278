/**
 * URL installs reach public addresses only, after DNS, on every redirect, and for git, unless the operator allows
 * more. Nothing here reaches beyond loopback: refused addresses are refused before any connection, and names
 * other than `localhost` are answered by a resolver the test passes in.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeZip, skillMd } from '../../test/install/test-zip';
import { DEFAULT_LIMITS } from '../config';
import { type InstallOptions, installSkill } from './install';
import { blockedRange, checkHost, MAX_REDIRECTS, type Resolver } from './network';
import { InstallError } from './problems';

const LIMITS = { maxFiles: 50, maxBytes: 4 * 1024 * 1024, maxRatio: 100, maxDownloadBytes: 8 * 1024 * 1024 };

let tmp: string;
let server: http.Server;
let port: number;
/** Request paths the test server saw, with their Host header. */
let seen: string[];
let zip: Buffer;

beforeAll(async () => {
  zip = await makeZip([{ name: 'net-skill/SKILL.md', content: skillMd('net-skill') }]);
  server = http.createServer((req, res) => {
    seen.push(`${req.headers.host} ${req.url}`);
    const to = (location: string, status = 302) => res.writeHead(status, { location }).end();
    if (req.url === '/skill.zip') res.end(zip);
    else if (req.url === '/chain.zip') to('/chain2.zip', 301);
    else if (req.url === '/chain2.zip') to(`http://127.0.0.1:${port}/skill.zip`, 307);
    else if (req.url === '/to-loopback6.zip') to(`http://[::1]:${port}/skill.zip`);
    else if (req.url === '/to-metadata.zip') to('http://169.254.169.254/latest/meta-data/skill.zip');
    else if (req.url === '/to-file.zip') to('file:///etc/passwd');
    else if (req.url?.startsWith('/loop')) to(`/loop${Number(req.url.slice(5, -4) || 0) + 1}.zip`);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

beforeEach(() => {
  seen = [];
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-install-net-'));
  return () => fs.rmSync(tmp, { recursive: true, force: true });
});

function options(extra: Partial<InstallOptions> = {}, allow: Partial<InstallOptions['install']> = {}): InstallOptions {
  return { root: path.join(tmp, 'skills'), install: { ...LIMITS, ...allow }, limits: DEFAULT_LIMITS, ...extra };
}

async function refused(url: string, extra?: Partial<InstallOptions>, allow?: Partial<InstallOptions['install']>) {
  const error = await installSkill({ kind: 'url', url }, options(extra, allow)).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InstallError);
  return (error as InstallError).problems;
}

describe('blockedRange', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.100.100.200', 'carrier-grade NAT'],
    ['0.0.0.0', '"this network"'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd00:ec2::254', 'unique local (private)'],
    ['fe80::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local (cloud metadata)'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:c0a8:101::1', 'private'],
  ])('%s is %s', (address, reason) => {
    expect(blockedRange(address)).toBe(reason);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    '%s is public',
    (address) => {
      expect(blockedRange(address)).toBeNull();
    },
  );
});

describe('URL installs reach public addresses only', () => {
  it.each([
    [`http://127.0.0.1:${1}/skill.zip`, 'loopback'],
    ['http://localhost/skill.zip', 'loopback'],
    ['http://[::1]/skill.zip', 'loopback'],
    ['http://[::ffff:127.0.0.1]/skill.zip', 'loopback'],
    ['http://0.0.0.0/skill.zip', '"this network"'],
    ['http://10.0.0.1/skill.zip', 'private'],
    ['https://192.168.0.10/index.json', 'private'],
    ['http://169.254.169.254/latest/meta-data/skill.zip', 'link-local (cloud metadata)'],
    ['http://100.64.0.1/skill.zip', 'carrier-grade NAT'],
    ['http://[fd00:ec2::254]/skill.zip', 'unique local (private)'],
    ['http://[fe80::1]/skill.zip', 'link-local'],
    ['http://224.0.0.1/skill.zip', 'multicast'],
    ['https://127.0.0.1/team/skills.git', 'loopback'],
    ['ssh://git@localhost/team/skills.git', 'loopback'],
  ])('%s is refused (%s) before any connection', async (url, reason) => {
    const problems = await refused(url);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.code).toBe('address-not-allowed');
    expect(problems[0]!.message).toContain(`is a ${reason} address; installs reach public addresses only`);
  });

  it('refuses the local test server unless the operator allows it', async () => {
    const url = `http://127.0.0.1:${port}/skill.zip`;
    expect((await refused(url)).map((p) => p.code)).toEqual(['address-not-allowed']);
    expect(seen).toEqual([]);
    for (const allow of [
      { allowPrivateNetworks: true },
      { allowHosts: ['127.0.0.1'] },
      { allowHosts: ['127.0.0.0/8'] },
    ]) {
      const result = await installSkill({ kind: 'url', url }, options({}, allow));
      expect(result.name).toBe('net-skill');
      fs.rmSync(path.join(tmp, 'skills'), { recursive: true });
    }
    const byName = await installSkill(
      { kind: 'url', url: `http://localhost:${port}/skill.zip` },
      options({}, { allowHosts: ['localhost'] }),
    );
    expect(byName.name).toBe('net-skill');
  });

  it('a name that resolves to a private address among public ones is refused (a rebinding name)', async () => {
    const resolve: Resolver = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const problems = await refused('https://mirror.example/skill.zip', { resolve });
    expect(problems[0]!.message).toBe(
      'mirror.example (127.0.0.1) is a loopback address; installs reach public addresses only (install.allowPrivateNetworks or install.allowHosts allow others)',
    );
  });
});

describe('redirects', () => {
  const local = { allowHosts: ['127.0.0.1'] };

  it('are followed by hand, each hop checked', async () => {
    const result = await installSkill({ kind: 'url', url: `http://127.0.0.1:${port}/chain.zip` }, options({}, local));
    expect(result.name).toBe('net-skill');
    expect(seen.map((s) => s.split(' ')[1])).toEqual(['/chain.zip', '/chain2.zip', '/skill.zip']);
  });

  it('to a refused address stop there, without connecting', async () => {
    const toMetadata = await refused(`http://127.0.0.1:${port}/to-metadata.zip`, {}, local);
    expect(toMetadata[0]!.message).toMatch(/^169\.254\.169\.254 is a link-local \(cloud metadata\) address/);
    const toLoopback6 = await refused(`http://127.0.0.1:${port}/to-loopback6.zip`, {}, local);
    expect(toLoopback6[0]!.message).toMatch(/^::1 is a loopback address/);
    expect(seen.map((s) => s.split(' ')[1])).toEqual(['/to-metadata.zip', '/to-loopback6.zip']);
  });

  it('only to http(s), and at most MAX_REDIRECTS', async () => {
    const toFile = await refused(`http://127.0.0.1:${port}/to-file.zip`, {}, local);
    expect(toFile[0]!.message).toBe('Redirected to a file: URL; only http and https are followed');
    const loop = await refused(`http://127.0.0.1:${port}/loop.zip`, {}, local);
    expect(loop.map((p) => p.code)).toEqual(['too-many-redirects']);
    expect(seen.filter((s) => s.includes('/loop'))).toHaveLength(MAX_REDIRECTS + 1);
  });
});

describe('the connection goes to the checked address', () => {
  it('a download connects where the name resolved at the check, without asking DNS again', async () => {
    let lookups = 0;
    // `mirror.test` does not exist: a second, system lookup would fail. The allowance names the host.
    const resolve: Resolver = async () => {
      lookups++;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const url = `http://mirror.test:${port}/skill.zip`;
    const result = await installSkill({ kind: 'url', url }, options({ resolve }, { allowHosts: ['mirror.test'] }));
    expect(result.name).toBe('net-skill');
    expect(lookups).toBe(1);
    expect(seen).toEqual([`mirror.test:${port} /skill.zip`]);
  });

  it('checkHost answers with the first address, once all are allowed', async () => {
    const resolve: Resolver = async () => [
      { address: '127.0.0.2', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    expect(await checkHost('twice.test', { allowHosts: ['127.0.0.0/8'] }, resolve)).toEqual({
      address: '127.0.0.2',
      family: 4,
    });
  });

  it('git clones over http from the pinned address (http.curloptResolve)', async () => {
    const repo = path.join(tmp, 'srv', 'repo.git');
    const work = path.join(tmp, 'work');
    fs.mkdirSync(path.join(work, 'git-net'), { recursive: true });
    fs.writeFileSync(path.join(work, 'git-net', 'SKILL.md'), skillMd('git-net'));
    const git = (cwd: string, ...args: string[]) =>
      execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd, stdio: 'pipe' });
    git(work, 'init', '-q');
    git(work, 'add', '.');
    git(work, 'commit', '-qm', 'one');
    git(tmp, 'clone', '-q', '--bare', work, repo);
    const gitServer = smartHttpServer(path.join(tmp, 'srv'));
    await new Promise<void>((resolve) => gitServer.listen(0, '127.0.0.1', resolve));
    const gitPort = (gitServer.address() as AddressInfo).port;
    try {
      const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
      const url = `http://git.mirror.test:${gitPort}/repo.git`;
      const result = await installSkill(
        { kind: 'url', url },
        options({ resolve }, { allowHosts: ['git.mirror.test'] }),
      );
      expect(result.name).toBe('git-net');
      // Without the allowance the same URL is refused before git runs.
      expect((await refused(url, { resolve })).map((p) => p.code)).toEqual(['address-not-allowed']);
    } finally {
      await new Promise((resolve) => gitServer.close(resolve));
    }
  });
});

/** git's smart HTTP protocol through `git http-backend` (CGI), enough for a shallow clone. */
function smartHttpServer(projectRoot: string): http.Server {
  return http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        ...process.env,
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(cgi.stdin);
    const chunks: Buffer[] = [];
    cgi.stdout.on('data', (c: Buffer) => chunks.push(c));
    cgi.on('close', () => {
      const out = Buffer.concat(chunks);
      const split = out.indexOf('\r\n\r\n');
      const head = out.subarray(0, split).toString().split('\r\n');
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head) {
        const [name, ...rest] = line.split(':');
        const value = rest.join(':').trim();
        if (name!.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else headers[name!] = value;
      }
      res.writeHead(status, headers).end(out.subarray(split + 4));
    });
  });
}
