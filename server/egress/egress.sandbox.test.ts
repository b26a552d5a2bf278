/**
 * A run's way out, every real part together: the run's own proxy (proxy.ts) opened by run-egress.ts over the
 * operator's grants and secrets, the TLS branch with the server's CA for a host that gets a secret header, and the
 * bubblewrap sandbox with the installed runtime, its forwarder and its trust bundle. Loopback only: the test names
 * (`upstream.test`, `tls.test`, `other.test`) resolve to 127.0.0.1 through the resolver the proxy is given, and
 * `network.private` lets 127.0.0.1 through. Needs `bin/skills runtime install` (`npm test` does it first).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestUpstreams, type TestUpstreams } from '../../test/sandbox/egress-proxy';
import { closeDb, openDb, sqliteDatabase } from '../db/client';
import { type ExecutionConfig, resolveExecutionConfig } from '../sandbox/config';
import { type CodeRunResult, runCommand } from '../sandbox/run';
import { bwrapAvailability } from '../sandbox/select';
import { deriveSecretsKey } from '../secrets/crypto';
import { resolveRunSecrets } from '../secrets/resolve';
import { createSecretStore, type SecretStore } from '../secrets/store';
import { runtimeInstalled } from '../toolchain/skills-runtime';
import type { Resolver } from './address';
import { type EgressConfig, resolveEgressConfig } from './config';
import { runEgress } from './run-egress';

const APP = path.join(import.meta.dirname, '..', '..');
const RUNTIME = process.env.SKILLCHAT_RUNTIME_DIR ?? path.join(APP, 'data', 'runtime');
const HEADER_SECRET = 'ghp_header-secret-4f9a2c7e1b';
const ENV_SECRET = 'env-signing-key-8d3b6a0f5e';

const available = await bwrapAvailability(65534);
const ready = available.ok && (await runtimeInstalled(RUNTIME));

const NAMES: Record<string, string> = {
  'upstream.test': '127.0.0.1',
  'tls.test': '127.0.0.1',
  'other.test': '127.0.0.1',
};
/** Test names to loopback; anything else does not exist (no test reaches DNS). */
const resolve: Resolver = async (host) => {
  const address = NAMES[host];
  if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return [{ address, family: 4 }];
};

let tmp: string;
let execution: ExecutionConfig;
let upstreams: TestUpstreams;
let egress: EgressConfig;
let store: SecretStore;
let closeStore: () => void;
let chat = 0;

const skill = (name: string, network = '') => ({ name, declares: { network: [], secrets: [] }, network });

/** Runs `command` in a fresh chat whose run is attributed to `skills`, for `person`. */
async function run(command: string, skills: string[], person: string | null = 'alice'): Promise<CodeRunResult> {
  chat += 1;
  return runCommand(command, {
    execution,
    chatId: `egress-${chat}`,
    timeoutMs: 30_000,
    egress: runEgress({
      config: egress,
      skills: skills.map((name) => skill(name)),
      permission: () => 'allow',
      secrets: () =>
        resolveRunSecrets({
          config: egress.secrets,
          person,
          skills,
          env: { EGRESS_TEST_TOKEN: HEADER_SECRET, EGRESS_TEST_SIGNING: ENV_SECRET },
          store,
        }),
      record: { db: null, chatId: null, userId: person },
      resolve,
    }),
  });
}

beforeAll(async () => {
  if (!ready) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-egress-run-'));
  fs.chmodSync(tmp, 0o755);
  execution = resolveExecutionConfig({ sandbox: { backend: 'bwrap' } }, tmp, tmp, { SKILLCHAT_RUNTIME_DIR: RUNTIME });
  const certs = path.join(tmp, 'certs');
  fs.mkdirSync(certs);
  upstreams = await startTestUpstreams(certs);
  // The operator trusts the TLS upstream's own CA (network.trust); the run trusts the server's CA, not that one.
  fs.writeFileSync(path.join(certs, 'upstream-ca.pem'), upstreams.caPem);
  const { httpPort, httpsPort } = upstreams;
  egress = resolveEgressConfig(
    {
      network: {
        skills: {
          'github-*': [`upstream.test:${httpPort}`, `tls.test:${httpsPort}`, `other.test:${httpPort}`],
          'team-*': ['team.test'],
        },
        private: ['127.0.0.1/32'],
        trust: [path.join(certs, 'upstream-ca.pem')],
      },
      secrets: {
        GITHUB_TOKEN: {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own `${env:NAME}` syntax
          value: '${env:EGRESS_TEST_TOKEN}',
          skills: ['github-*'],
          hosts: [`upstream.test:${httpPort}`, `tls.test:${httpsPort}`],
          header: 'Authorization: Bearer {}',
        },
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own `${env:NAME}` syntax
        SIGNING_KEY: { value: '${env:EGRESS_TEST_SIGNING}', skills: ['github-*'] },
        TEAM_TOKEN: {
          skills: ['team-*'],
          hosts: [`upstream.test:${httpPort}`],
          header: 'Authorization: token {}',
          personal: true,
        },
      },
    },
    tmp,
    tmp,
  );
  // team-* is granted team.test only; for the personal-secret case it also gets the upstream.
  egress.network.skills['team-*'] = [`upstream.test:${httpPort}`];
  const db = openDb(':memory:');
  store = createSecretStore(sqliteDatabase(db), () => deriveSecretsKey('egress-test-auth-secret-of-32-chars!!'));
  closeStore = () => closeDb(db);
}, 60_000);

afterAll(async () => {
  if (!ready) return;
  await upstreams.close();
  closeStore();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const http = (host = 'upstream.test') => `http://${host}:${upstreams.httpPort}/`;
const https = () => `https://tls.test:${upstreams.httpsPort}/`;

describe.skipIf(!ready)('a granted skill reaches its hosts from the sandbox', () => {
  it('with curl, Python urllib and requests, and Node fetch, over HTTP and HTTPS', async () => {
    const urls = JSON.stringify([http(), https()]);
    const r = await run(
      [
        `curl -sS --fail ${http()}curl && curl -sS --fail ${https()}curl`,
        `python3 -c 'import urllib.request,json; [print(urllib.request.urlopen(u).read().decode(), end="") for u in json.loads(${JSON.stringify(urls)})]'`,
        `python3 -c 'import requests; print(requests.get("${https()}requests").text, end="")'`,
        `cat > f.mjs <<'JS'\nfor (const u of ${urls}) process.stdout.write(await (await fetch(u + 'fetch')).text());\nJS\nnode f.mjs`,
      ].join(' && '),
      ['github-issues'],
    );
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout.match(/upstream says hello/g)).toHaveLength(7);
    expect(r.stdout).toContain('https upstream says hello to /requests');
    expect(r.egress?.every((line) => line.allowed)).toBe(true);
    expect(r.egress?.map((l) => `${l.host}:${l.port}`).sort()).toEqual(
      [`tls.test:${upstreams.httpsPort}`, `upstream.test:${upstreams.httpPort}`].sort(),
    );
  });

  it('is refused in a chat where only an ungranted skill is active, with the host and the reason in the result', async () => {
    const r = await run(`curl -sS ${http()}x; curl -sS -o /dev/null ${https()}`, ['notes']);
    expect(r.stdout).not.toContain('upstream says hello');
    const refused = r.egress?.filter((l) => !l.allowed) ?? [];
    expect(refused.map((l) => l.host).sort()).toEqual(['tls.test', 'upstream.test']);
    expect(refused[0]?.reason).toMatch(/is not granted to notes/);
  });

  it("refuses a granted skill's request to another host or port", async () => {
    const r = await run(`curl -sS ${http('team.test')}; curl -sS http://upstream.test:${upstreams.httpsPort}/`, [
      'github-issues',
    ]);
    expect(r.stdout).not.toContain('upstream says hello');
    expect(r.egress?.some((l) => l.allowed)).toBe(false);
    expect(r.egress?.map((l) => l.reason).join('\n')).toMatch(/team\.test:\d+ is not granted to github-issues/);
  });
});

describe.skipIf(!ready)('secrets', () => {
  it('a header secret is added by the proxy for its hosts over HTTP and HTTPS; the run holds a placeholder', async () => {
    upstreams.received.length = 0;
    const r = await run(
      [
        `curl -sS --fail -H 'Authorization: Bearer $GITHUB_TOKEN' ${http()}h1`,
        `curl -sS --fail ${https()}h2`,
        `curl -sS --fail ${http('other.test')}h3`,
        'printenv GITHUB_TOKEN',
      ].join(' && '),
      ['github-issues'],
    );
    expect(r.exitCode).toBe(0);
    const seen = Object.fromEntries(upstreams.received.map((e) => [e.path, e.authorization]));
    expect(seen['/h1']).toBe(`Bearer ${HEADER_SECRET}`);
    expect(seen['/h2']).toBe(`Bearer ${HEADER_SECRET}`);
    // other.test is granted but not one of the secret's hosts: no header.
    expect(seen['/h3']).toBeUndefined();
    expect(r.stdout).toMatch(/^skillchat-placeholder-GITHUB_TOKEN-[0-9a-f]{8}$/m);
    expect(r.stdout).not.toContain(HEADER_SECRET);
  });

  it('env, printenv, a script printing every variable and /proc never show a header secret; an env secret is redacted in every form', async () => {
    const r = await run(
      [
        'env',
        'printenv GITHUB_TOKEN SIGNING_KEY',
        `python3 -c 'import os; print(dict(os.environ))'`,
        'cat /proc/1/environ | tr "\\0" "\\n"; cat /proc/self/environ | tr "\\0" "\\n"',
        'printf %s "$SIGNING_KEY" | base64',
        'printf "user:%s" "$SIGNING_KEY" | base64',
        `python3 -c 'import os,urllib.parse; print(urllib.parse.quote(os.environ["SIGNING_KEY"]), os.environ["SIGNING_KEY"].encode().hex())'`,
        'touch "out-$SIGNING_KEY.txt"',
      ].join('; '),
      ['github-issues'],
    );
    const all = `${r.stdout}\n${r.stderr}\n${r.error ?? ''}\n${JSON.stringify(r.files)}`;
    expect(r.files.map((f) => f.name)).toEqual(['out-[secret SIGNING_KEY].txt']);
    expect(all).not.toContain(HEADER_SECRET);
    for (const form of [
      ENV_SECRET,
      Buffer.from(ENV_SECRET).toString('base64').slice(0, -2),
      Buffer.from(ENV_SECRET).toString('hex'),
    ]) {
      expect(all).not.toContain(form);
    }
    expect(r.stdout).toContain('[secret SIGNING_KEY]');
    expect(r.stdout).toContain('SIGNING_KEY=[secret SIGNING_KEY]');
  });

  it("each person's own secret goes with their runs only; a person without one is refused with a sentence", async () => {
    await store.set('TEAM_TOKEN', 'alice', 'alice-own-token-123');
    await store.set('TEAM_TOKEN', 'bob', 'bob-own-token-456');
    upstreams.received.length = 0;
    await run(`curl -sS --fail ${http()}alice`, ['team-sync'], 'alice');
    await run(`curl -sS --fail ${http()}bob`, ['team-sync'], 'bob');
    const carol = await run(`curl -sS ${http()}carol`, ['team-sync'], 'carol');
    const seen = Object.fromEntries(upstreams.received.map((e) => [e.path, e.authorization]));
    expect(seen['/alice']).toBe('token alice-own-token-123');
    expect(seen['/bob']).toBe('token bob-own-token-456');
    expect(seen['/carol']).toBeUndefined();
    expect(carol.egress?.[0]).toMatchObject({ allowed: false, reason: expect.stringMatching(/needs your TEAM_TOKEN/) });
  });
});
