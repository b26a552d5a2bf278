/**
 * A run's way out as the turn opens it (turnEgress -> runEgress -> its proxy on a Unix socket), for a skill under
 * `ask` that declares loopback hosts the operator has not granted: the run reaches exactly the hosts its call's
 * approval named; without the approval, or for a host it does not declare, it is refused and nothing is reached.
 * Upstreams on 127.0.0.1 only (`network.private` lists it); requests go in absolute form over the proxy's socket.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessResolver } from '../../access/resolver';
import { DEFAULT_LIMITS } from '../../config';
import { resolveEgressConfig } from '../../egress/config';
import type { SkillHosts } from '../../egress/grants';
import type { OpenedEgress } from '../../egress/types';
import { loadSkill } from '../../skills/load/skill-file';
import type { Skill } from '../../skills/types';
import type { TurnContext } from './context';
import { turnEgress } from './egress';

let tmp: string;
let declared: http.Server;
let undeclared: http.Server;
const reached: string[] = [];
let skill: Skill;
let run: (approved?: readonly SkillHosts[]) => Promise<OpenedEgress>;

const listen = async (name: string) => {
  const server = http.createServer((req, res) => {
    reached.push(`${name} ${req.url}`);
    res.end(`hello from ${name}`);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return server;
};
const portOf = (server: http.Server) => (server.address() as AddressInfo).port;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-egress-'));
  declared = await listen('declared');
  undeclared = await listen('undeclared');
  const dir = path.join(tmp, 'skills', 'loopback-api');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'SKILL.md'),
    `---\nname: loopback-api\ndescription: Test skill.\nmetadata:\n  network: "127.0.0.1:${portOf(declared)}"\n---\n\nBody.\n`,
  );
  const root = path.join(tmp, 'skills');
  skill = (await loadSkill(dir, { root, scope: 'project', relDir: 'loopback-api', limits: DEFAULT_LIMITS })).skill!;
  // Something is granted (to another skill), so runs get a proxy at all; loopback is reachable only through
  // `network.private`.
  const egress = resolveEgressConfig(
    { network: { skills: { other: ['other.test'] }, private: ['127.0.0.1/32'] } },
    tmp,
    path.join(tmp, 'data'),
  );
  const access = createAccessResolver({
    roots: [],
    appDir: tmp,
    permissions: { rules: { 'loopback-api': 'ask' } },
  }).resolveAll([skill]);
  const turn = {
    deps: { config: { egress, execution: { runtime: { installs: 'off' } } } },
    chatId: 'c',
    view: { access },
  } as unknown as Pick<TurnContext, 'deps' | 'chatId' | 'view'>;
  const open = turnEgress(turn)!;
  let runs = 0;
  run = async (approved) => (await open([skill], approved)!.open({ runId: `run-${++runs}`, uid: 0, gid: 0 }))!;
});

afterAll(async () => {
  for (const server of [declared, undeclared]) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A plain-HTTP request in absolute form through the run's proxy socket. */
function get(egress: OpenedEgress, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request({
      socketPath: egress.sandbox.socket,
      path: url,
      headers: { host: new URL(url).host },
    });
    request.on('response', (res) => {
      let body = '';
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('a run of a skill under ask reaches the declared hosts its approval named, and only those', () => {
  it('approved: the declared loopback host answers, and the record says so', async () => {
    reached.length = 0;
    const port = portOf(declared);
    const egress = await run([{ skill: 'loopback-api', hosts: [`127.0.0.1:${port}`] }]);
    expect(await get(egress, `http://127.0.0.1:${port}/today`)).toEqual({ status: 200, body: 'hello from declared' });
    expect(await egress.close()).toMatchObject([{ host: '127.0.0.1', port, allowed: true, requests: 1 }]);
    expect(reached).toEqual(['declared /today']);
  });

  it('approved, but a host the skill does not declare: refused as not granted, nothing reached', async () => {
    reached.length = 0;
    const egress = await run([{ skill: 'loopback-api', hosts: [`127.0.0.1:${portOf(declared)}`] }]);
    const refused = await get(egress, `http://127.0.0.1:${portOf(undeclared)}/`);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain(`127.0.0.1:${portOf(undeclared)} is not granted to loopback-api.`);
    await egress.close();
    expect(reached).toEqual([]);
  });

  it('not approved (no card answered, or another skill’s approval): needs approval, nothing reached', async () => {
    reached.length = 0;
    const port = portOf(declared);
    for (const approved of [undefined, [], [{ skill: 'other', hosts: [`127.0.0.1:${port}`] }]]) {
      const egress = await run(approved);
      const refused = await get(egress, `http://127.0.0.1:${port}/`);
      expect(refused.status).toBe(403);
      expect(refused.body).toContain(
        `127.0.0.1:${port} is declared by loopback-api but not granted; it needs the person's approval.`,
      );
      expect(await egress.close()).toMatchObject([{ host: '127.0.0.1', port, allowed: false }]);
    }
    expect(reached).toEqual([]);
  });
});
