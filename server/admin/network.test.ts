import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDb, type Database, type Db, insertEgressEvents, openDb, sqliteDatabase } from '../db';
import { resolveEgressConfig } from '../egress/config';
import { resolveExecutionConfig } from '../sandbox/config';
import type { Skill } from '../skills/types';
import {
  buildNetworkSkills,
  egressQueryString,
  loadAdminInstalls,
  loadEgressExport,
  parseEgressQuery,
} from './network';

const q = (text: string) => new URLSearchParams(text);

describe('the egress record filters', () => {
  it('reads person, skill, host, outcome and page; empty means no filter', () => {
    expect(parseEgressQuery(q('person=u1&skill=github-issues&host=API.GitHub.com&allowed=no&page=3'))).toEqual({
      person: 'u1',
      skill: 'github-issues',
      host: 'api.github.com',
      allowed: false,
      page: 3,
    });
    expect(parseEgressQuery(q('person=&skill=&host=&allowed=&paths=absolute'), ['paths'])).toEqual({ page: 1 });
    expect(egressQueryString({ skill: 'a', allowed: true, page: 2 })).toBe('skill=a&allowed=yes&page=2');
  });

  it('a bad, unknown or repeated parameter is a 400 saying which', () => {
    const code = (text: string) => {
      try {
        parseEgressQuery(q(text));
        return null;
      } catch (error) {
        return [(error as { code: string }).code, (error as Error).message];
      }
    };
    expect(code('allowed=maybe')).toEqual([
      'bad_request:egress',
      expect.stringMatching(/^Invalid filter of the egress record: allowed/),
    ]);
    expect(code('page=0')?.[0]).toBe('bad_request:egress');
    expect(code('colour=red')?.[0]).toBe('bad_request:egress');
    expect(code('host=a&host=b')).toEqual(['bad_request:egress', 'Give "host" once']);
  });
});

describe('declared beside granted, per skill', () => {
  it('lists the skills that declare or are granted anything, with their permission', () => {
    const config = resolveEgressConfig(
      { network: { skills: { 'github-*': ['api.github.com'] } } },
      '/app',
      '/app/data',
    );
    const skills: Array<Pick<Skill, 'name' | 'frontmatter'>> = [
      { name: 'pdf', frontmatter: {} },
      { name: 'weather', frontmatter: { metadata: { network: 'api.weather.test' } } },
      { name: 'github-issues', frontmatter: { metadata: { network: 'api.github.com', secrets: 'GITHUB_TOKEN' } } },
    ];
    const built = buildNetworkSkills(config, skills, (name) => (name === 'weather' ? 'ask' : 'allow'));
    expect(built.quiet).toBe(1);
    expect(built.skills.map((s) => [s.skill, s.permission, s.hosts, s.secrets])).toEqual([
      [
        'github-issues',
        'allow',
        [{ pattern: 'api.github.com', declared: true, granted: true }],
        [{ name: 'GITHUB_TOKEN', declared: true, granted: false }],
      ],
      ['weather', 'ask', [{ pattern: 'api.weather.test', declared: true, granted: false }], []],
    ]);
  });
});

describe('the JSON export', () => {
  let db: Db;
  let d: Database;
  beforeEach(() => {
    db = openDb(':memory:');
    d = sqliteDatabase(db);
  });
  afterEach(() => closeDb(db));

  it('holds every event under the filters, people by email', async () => {
    const base = { port: 443, skills: ['s'], requests: 1, bytesIn: 1, bytesOut: 1, durationMs: 1 };
    await insertEgressEvents(
      { runId: 'r', chatId: null, userId: 'u1' },
      [
        { ...base, host: 'a.test', allowed: true, startedAt: 1 },
        {
          ...base,
          host: 'b.test',
          allowed: false,
          code: 'not-granted',
          reason: 'b.test:443 is not granted to s.',
          startedAt: 2,
        },
      ],
      d,
    );
    const out = await loadEgressExport({ db: d }, { allowed: false, page: 4 }, new Map([['u1', 'ann@example.test']]));
    expect(out.filters).toEqual({ allowed: false });
    expect(out.events.map((e) => [e.host, e.person, e.reason])).toEqual([
      ['b.test', 'ann@example.test', 'b.test:443 is not granted to s.'],
    ]);
  });
});

describe('package installs on /admin', () => {
  it('shows the setting, the indexes runs read from, and the hosts and folders they take', async () => {
    const runtime = (installs?: 'allow') =>
      resolveExecutionConfig(
        {
          runtime: {
            ...(installs ? { installs } : {}),
            indexes: { pip: ['file:///srv/pypi/simple'], findLinks: [], npm: 'https://npm.example.org/' },
          },
        },
        '/app',
        '/app/data',
      ).runtime;
    expect(await loadAdminInstalls(runtime('allow'))).toEqual({
      mode: 'allow',
      source: 'config',
      pip: { index: 'file:///srv/pypi/simple', extra: [], findLinks: [] },
      npm: 'https://npm.example.org/',
      hosts: ['npm.example.org:443'],
      folders: ['/srv/pypi'],
      problems: [],
    });
    expect((await loadAdminInstalls(runtime())).mode).toBe('off');
  });
});
