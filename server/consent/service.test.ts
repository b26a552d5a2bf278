import { describe, expect, it } from 'vitest';
import type { ConsentAsk } from './ask';
import { type ConsentStore, decideConsent, recordAnswer } from './service';
import {
  type ConsentSubject,
  SUBJECT_KINDS,
  storedLabel,
  storedSubject,
  subjectFromStored,
  subjectLabel,
} from './subjects';

const EXAMPLES: ConsentSubject[] = [
  { kind: 'skill', name: 'pdf' },
  { kind: 'skill', name: 'mcp:github' },
  { kind: 'mcp-server', label: 'github' },
  { kind: 'mcp-tool', label: 'github', tool: 'list/issues' },
  { kind: 'shell-command', command: 'ls -la /workspace' },
  { kind: 'shell-prefix', prefix: 'npm run' },
  { kind: 'network', skill: 'team:github-issues', hosts: 'api.github.com:443 uploads.github.com:443' },
];

/** A store in memory that says what was written. */
function memoryStore(grants: Array<[ConsentSubject, string]> = []) {
  const written: string[] = [];
  const store: ConsentStore = {
    hasGrant: async (subject, version) =>
      grants.some(
        ([s, v]) => JSON.stringify(storedSubject(s)) === JSON.stringify(storedSubject(subject)) && v === version,
      ),
    addGrant: async (subject, version) => {
      written.push(`grant ${subjectLabel(subject)} ${version}`);
    },
    personalGrants: async (kind) => grants.flatMap(([s]) => (s.kind === kind ? [s] : [])),
    recordDecision: async ({ subject, decision, version }) => {
      written.push(`decision ${subjectLabel(subject)} ${decision} ${version}`);
    },
  };
  return { store, written };
}

const ask = (over: Partial<ConsentAsk> = {}): ConsentAsk => ({
  subject: { kind: 'mcp-tool', label: 'github', tool: 'create_issue' },
  rule: 'ask',
  reason: 'Call it?',
  version: async () => 'v1',
  always: true,
  ...over,
});

describe('consent subjects', () => {
  it('every kind is stored as its kind and a key, and read back the same', () => {
    for (const subject of EXAMPLES) expect(subjectFromStored(storedSubject(subject))).toEqual(subject);
    expect(new Set(EXAMPLES.map((s) => s.kind))).toEqual(new Set(Object.keys(SUBJECT_KINDS)));
  });

  it('the served skill mcp:github and the MCP server github are different subjects', () => {
    const skill = storedSubject({ kind: 'skill', name: 'mcp:github' });
    const server = storedSubject({ kind: 'mcp-server', label: 'github' });
    expect(skill).not.toEqual(server);
  });

  it('names each subject on /admin as before: a skill by name, an MCP tool as mcp:<label>/<tool>', () => {
    expect(storedLabel({ kind: 'skill', key: 'pdf' })).toBe('pdf');
    expect(storedLabel({ kind: 'mcp-tool', key: 'github/list_issues' })).toBe('mcp:github/list_issues');
    expect(storedLabel({ kind: 'network-host', key: 'example.com' })).toBe('network-host:example.com');
  });
});

describe('decideConsent', () => {
  it('follows the rule: allow runs, deny refuses, given approves, ask shows the card', async () => {
    const { store } = memoryStore();
    expect(await decideConsent(null, store)).toBeUndefined();
    expect(await decideConsent(ask({ rule: 'allow' }), store)).toBeUndefined();
    expect(await decideConsent(ask({ rule: 'deny', reason: 'no' }), store)).toEqual({ type: 'denied', reason: 'no' });
    expect(await decideConsent(ask({ rule: 'given', reason: 'by /name' }), store)).toEqual({
      type: 'approved',
      reason: 'by /name',
    });
    expect(await decideConsent(ask(), store)).toEqual({ type: 'user-approval', reason: 'Call it?' });
  });

  it('a grant for this version approves; for another version, or where "Always allow" is not offered, it asks', async () => {
    const { store } = memoryStore([[{ kind: 'mcp-tool', label: 'github', tool: 'create_issue' }, 'v1']]);
    expect(await decideConsent(ask(), store)).toEqual({
      type: 'approved',
      reason: 'Always allowed for this version of the tool.',
    });
    expect(await decideConsent(ask({ version: async () => 'v2' }), store)).toMatchObject({ type: 'user-approval' });
    expect(await decideConsent(ask({ always: false }), store)).toMatchObject({ type: 'user-approval' });
  });

  it('hashes nothing when no grant is looked up', async () => {
    let hashed = 0;
    const version = async () => {
      hashed += 1;
      return 'v';
    };
    await decideConsent(ask({ rule: 'allow', version }), memoryStore().store);
    await decideConsent(ask({ rule: 'given', version }), memoryStore().store);
    await decideConsent(ask({ always: false, version }), memoryStore().store);
    expect(hashed).toBe(0);
  });
});

describe('standing grants', () => {
  const shell = (command: string, covered: boolean): ConsentAsk =>
    ask({
      subject: { kind: 'shell-command', command },
      version: async () => command,
      standing: { subject: { kind: 'shell-prefix', prefix: 'soffice' }, covered: () => covered },
    });

  it("a person's standing grant approves a covered call; otherwise the card shows", async () => {
    const { store } = memoryStore([[{ kind: 'shell-prefix', prefix: 'soffice' }, 'soffice']]);
    expect(await decideConsent(shell('soffice a.docx', true), store)).toMatchObject({ type: 'approved' });
    expect(await decideConsent(shell('rm x', false), store)).toMatchObject({ type: 'user-approval' });
  });

  it('"Always allow" keeps the standing subject, not the exact command', async () => {
    const { store, written } = memoryStore();
    await recordAnswer(shell('soffice a.docx', false), { approved: true, always: true }, 'c', store);
    expect(written).toEqual(['grant soffice … soffice']);
  });
});

describe('recordAnswer', () => {
  it('keeps a grant only for "Always allow" where it is offered, and logs the kinds that keep a log', async () => {
    const { store, written } = memoryStore();
    await recordAnswer(ask(), { approved: true, always: true }, 'c', store);
    await recordAnswer(ask({ always: false }), { approved: true, always: true }, 'c', store);
    await recordAnswer(ask(), { approved: false, always: true }, 'c', store);
    await recordAnswer(
      ask({ subject: { kind: 'shell-command', command: 'rm -rf x' }, always: false }),
      { approved: true },
      'c',
      store,
    );
    expect(written).toEqual([
      'grant mcp:github/create_issue v1',
      'decision mcp:github/create_issue always v1',
      'decision mcp:github/create_issue always v1',
      'decision mcp:github/create_issue denied v1',
    ]);
  });
});
