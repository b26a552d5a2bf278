/**
 * The network approval, asked before the run through the one approvals path (chat/approvals.ts): a script of a skill
 * under `ask` that declares hosts the operator has not granted, and a command while such a skill is active, per shell
 * mode. What the call's consent covered is kept for its run, and only when the call may run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { skillContentHash } from '../access/content-hash';
import { createAccessResolver } from '../access/resolver';
import { createToolApproval } from '../chat/approvals';
import type { TurnContext } from '../chat/turn/context';
import { turnUngrantedHosts } from '../chat/turn/egress';
import { DEFAULT_LIMITS } from '../config';
import { type ConsentStore, decideConsent } from '../consent/service';
import { type ConsentSubject, storedSubject } from '../consent/subjects';
import { type EgressConfig, resolveEgressConfig } from '../egress/config';
import type { SkillHosts } from '../egress/grants';
import type { ShellMode } from '../sandbox/config';
import { loadSkill } from '../skills/load/skill-file';
import type { Skill } from '../skills/types';
import { toolConsent } from '.';
import type { ConsentToolContext } from './context';
import { TOOL_RUN_SCRIPT, TOOL_SHELL } from './names';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'network-consent-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function skill(name: string, network: string): Promise<Skill> {
  const dir = path.join(tmp, name);
  fs.mkdirSync(path.join(dir, 'scripts'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'SKILL.md'),
    `---\nname: ${name}\ndescription: Test skill.\nmetadata:\n  network: "${network}"\n---\n\nRun scripts/get.sh.\n`,
  );
  fs.writeFileSync(path.join(dir, 'scripts', 'get.sh'), 'curl -s "$1"\n');
  return (await loadSkill(dir, { root: tmp, scope: 'project', relDir: name, limits: DEFAULT_LIMITS })).skill!;
}

const weather = await skill('weather', '127.0.0.1:9000 api.weather.test');
const rates = await skill('rates', 'rates.test:8443');
const plain = await skill('plain', 'plain.test');
const all = [weather, rates, plain];

/** The operator grants weather api.weather.test on 443 only; weather and rates are under `ask`, plain is `allow`. */
const granting = resolveEgressConfig(
  { network: { skills: { weather: ['api.weather.test:443'] } } },
  tmp,
  path.join(tmp, 'data'),
);
const access = createAccessResolver({
  roots: [],
  appDir: tmp,
  permissions: { rules: { weather: 'ask', rates: 'ask', plain: 'allow' } },
}).resolveAll(all);

function tools(over: { shell?: ShellMode; activated?: string[]; egress?: EgressConfig } = {}): ConsentToolContext {
  const egress = over.egress ?? granting;
  const turn = {
    deps: { config: { egress, execution: { runtime: { installs: 'off' } } } },
    view: { access },
  } as unknown as Pick<TurnContext, 'deps' | 'view'>;
  const ungrantedHosts = turnUngrantedHosts(turn);
  return {
    skills: new Map(all.map((s) => [s.name, s])),
    access,
    display: { appDir: tmp, home: '/nonexistent' },
    activated: new Set(over.activated ?? all.map((s) => s.name)),
    ...(over.shell ? { shell: over.shell } : {}),
    ...(ungrantedHosts ? { ungrantedHosts } : {}),
  };
}

/** Grants as the consent store keeps them (subject and version), in memory. */
let grants: Array<[ConsentSubject, string]>;
const store: ConsentStore = {
  hasGrant: async (subject, version) =>
    grants.some(
      ([s, v]) => JSON.stringify(storedSubject(s)) === JSON.stringify(storedSubject(subject)) && v === version,
    ),
  addGrant: async (subject, version) => {
    grants.push([subject, version]);
  },
  personalGrants: async (kind) => grants.flatMap(([s]) => (s.kind === kind ? [s] : [])),
  recordDecision: async () => {},
};
beforeEach(() => {
  grants = [];
});

/** One call through the approvals path: its status and what its run may reach. */
async function call(ctx: ConsentToolContext, toolName: string, input: Record<string, unknown>) {
  const approvedNetwork = new Map<string, readonly SkillHosts[]>();
  const approval = createToolApproval({ chatId: 'c', tools: ctx, consent: store, approvedNetwork });
  const status = await approval({ toolCall: { toolCallId: 'call-1', toolName, input } });
  return { status, approved: approvedNetwork.get('call-1') ?? null };
}

const script = (name: string) => ({ name, path: 'scripts/get.sh', args: [] });

describe('a script of a skill under ask that declares hosts not granted', () => {
  it('asks first, naming the skill and each host:port not granted, bound to the skill content hash', async () => {
    const ask = toolConsent(TOOL_RUN_SCRIPT, tools(), script('weather'))!;
    expect(ask).toMatchObject({
      subject: { kind: 'network', skill: 'weather', hosts: '127.0.0.1:9000 api.weather.test:80' },
      rule: 'ask',
      reason:
        '"weather" declares network access the operator has not granted: 127.0.0.1:9000, api.weather.test:80. Its script may reach them if you allow it.',
      always: true,
      network: [{ skill: 'weather', hosts: ['127.0.0.1:9000', 'api.weather.test:80'] }],
    });
    expect(await ask.version()).toBe(await skillContentHash(weather));
    const { status } = await call(tools(), TOOL_RUN_SCRIPT, script('weather'));
    expect(status).toEqual({ type: 'user-approval', reason: ask.reason });
  });

  it('asks nothing for a skill under allow, an unknown skill, or on a server that grants no network at all', async () => {
    expect(await call(tools(), TOOL_RUN_SCRIPT, script('plain'))).toEqual({ status: undefined, approved: null });
    expect(toolConsent(TOOL_RUN_SCRIPT, tools(), script('nope'))).toBeNull();
    const sealed = resolveEgressConfig({}, tmp, path.join(tmp, 'data'));
    expect(toolConsent(TOOL_RUN_SCRIPT, tools({ egress: sealed }), script('weather'))).toBeNull();
  });

  it('asks nothing once every declared host:port is granted', async () => {
    const everything = resolveEgressConfig(
      { network: { skills: { weather: ['api.weather.test', '127.0.0.1:9000'] } } },
      tmp,
      path.join(tmp, 'data'),
    );
    expect(toolConsent(TOOL_RUN_SCRIPT, tools({ egress: everything }), script('weather'))).toBeNull();
  });

  it('a standing "Always allow" for this content runs it without a card, with exactly the hosts it named', async () => {
    const ask = toolConsent(TOOL_RUN_SCRIPT, tools(), script('weather'))!;
    grants.push([ask.subject, await ask.version()]);
    expect(await call(tools(), TOOL_RUN_SCRIPT, script('weather'))).toEqual({
      status: { type: 'approved', reason: 'Always allowed for this version of the skill.' },
      approved: [{ skill: 'weather', hosts: ['127.0.0.1:9000', 'api.weather.test:80'] }],
    });
  });

  it('asks again once the skill changes: the grant was for the old content', async () => {
    const edited = await skill('edited', 'edited.test:9443');
    const ctx = { ...tools(), skills: new Map([[edited.name, edited]]), activated: new Set([edited.name]) };
    const rules = createAccessResolver({ roots: [], appDir: tmp, permissions: { rules: { edited: 'ask' } } });
    ctx.access = rules.resolveAll([edited]);
    const turn = {
      deps: { config: { egress: granting, execution: { runtime: { installs: 'off' } } } },
      view: { access: ctx.access },
    } as unknown as Pick<TurnContext, 'deps' | 'view'>;
    ctx.ungrantedHosts = turnUngrantedHosts(turn);
    const ask = toolConsent(TOOL_RUN_SCRIPT, ctx, script('edited'))!;
    grants.push([ask.subject, await ask.version()]);
    expect(await decideConsent(ask, store)).toMatchObject({ type: 'approved' });
    fs.appendFileSync(path.join(edited.dir, 'scripts', 'get.sh'), 'curl -s https://elsewhere.test/\n');
    expect(await decideConsent(toolConsent(TOOL_RUN_SCRIPT, ctx, script('edited')), store)).toMatchObject({
      type: 'user-approval',
    });
  });

  it('the person’s Allow, checked again before the call runs, hands its hosts to the run', async () => {
    // The SDK resolves an answered approval once more before executing it: `user-approval` is then the Allow.
    expect((await call(tools(), TOOL_RUN_SCRIPT, script('weather'))).approved).toEqual([
      { skill: 'weather', hosts: ['127.0.0.1:9000', 'api.weather.test:80'] },
    ]);
  });
});

describe('a command while skills under ask that declare hosts not granted are active', () => {
  const command = { command: 'curl -s http://127.0.0.1:9000/' };

  it('shell mode allow: asks once, naming every such skill and its hosts, never always', async () => {
    const ask = toolConsent(TOOL_SHELL, tools({ shell: 'allow' }), command)!;
    expect(ask).toMatchObject({
      subject: { kind: 'network', skill: 'weather,rates', hosts: '127.0.0.1:9000 api.weather.test:80 rates.test:8443' },
      rule: 'ask',
      reason:
        '"weather" declares network access the operator has not granted: 127.0.0.1:9000, api.weather.test:80; "rates" declares network access the operator has not granted: rates.test:8443. This command may reach them if you allow it.',
      always: false,
    });
    const { status, approved } = await call(tools({ shell: 'allow' }), TOOL_SHELL, command);
    expect(status).toMatchObject({ type: 'user-approval' });
    expect(approved?.map((a) => a.skill)).toEqual(['weather', 'rates']);
  });

  it('shell mode allow: runs without a card when no active skill has such hosts', async () => {
    expect(await call(tools({ shell: 'allow', activated: ['plain'] }), TOOL_SHELL, command)).toEqual({
      status: undefined,
      approved: null,
    });
  });

  it('shell mode ask: the command stays the subject, its reason names the hosts it may also reach', async () => {
    const ask = toolConsent(TOOL_SHELL, tools({ shell: 'ask', activated: ['rates', 'plain'] }), command)!;
    expect(ask).toMatchObject({
      subject: { kind: 'shell-command', command: command.command },
      rule: 'ask',
      reason:
        'Run a command in the chat\'s sandbox: it sees the chat\'s files and the activated skills, and reaches only the hosts granted to them. If you allow it, it may also reach what the active skills declare and the operator has not granted: "rates": rates.test:8443. A command that may reach them is asked for each time.',
      always: false,
      network: [{ skill: 'rates', hosts: ['rates.test:8443'] }],
    });
    expect(toolConsent(TOOL_SHELL, tools({ shell: 'ask', activated: ['plain'] }), command)).toMatchObject({
      reason:
        "Run a command in the chat's sandbox: it sees the chat's files and the activated skills, and reaches only the hosts granted to them.",
    });
    expect(toolConsent(TOOL_SHELL, tools({ shell: 'ask', activated: ['plain'] }), command)?.network).toBeUndefined();
  });

  it('shell mode off: refused, as before', async () => {
    expect(await call(tools({ shell: 'off' }), TOOL_SHELL, command)).toEqual({
      status: { type: 'denied', reason: 'The shell is switched off for this person.' },
      approved: null,
    });
  });
});
