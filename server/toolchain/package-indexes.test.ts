/**
 * The package indexes of `runtime.installs`: read from `pip config list` and `npm config get registry` (here a
 * stand-in venv python that prints what pip would, and the machine's real npm), or from `runtime.indexes`; and what a
 * run gets of them: hosts through its proxy, folders bound read-only.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_NPM_REGISTRY,
  DEFAULT_PIP_INDEX,
  indexAccess,
  type PackageIndexes,
  packageIndexes,
  parsePipConfigList,
  readIndexes,
} from './package-indexes';

/** What `pip config list` prints on a machine with a local mirror, a find-links folder and PIP_ variables. */
const PIP_CONFIG = [
  ":env:.cert='/etc/ssl/certs/ca-certificates.crt'",
  ":env:.find-links='/opt/wheels'",
  "global.cert='/etc/ssl/certs/ca-certificates.crt'",
  "global.extra-index-url='file:///opt/pypi/simple https://user:hunter2@mirror.example.org/simple'",
  "global.find-links='/srv/ignored-by-env'",
  '',
].join('\n');

const none = { pipConfig: null, npmRegistry: null, problems: [] };

describe('reading the indexes', () => {
  it("reads pip's settings as pip ranks them, drops credentials, and defaults to PyPI", () => {
    const config = parsePipConfigList(PIP_CONFIG);
    expect(config.get('global.cert')).toBe('/etc/ssl/certs/ca-certificates.crt');
    const indexes = readIndexes(undefined, {
      pipConfig: config,
      npmRegistry: 'https://registry.npmjs.org/',
      problems: [],
    });
    expect(indexes).toMatchObject({
      source: 'discovered',
      pip: {
        index: DEFAULT_PIP_INDEX,
        extra: ['file:///opt/pypi/simple', 'https://mirror.example.org/simple'],
        findLinks: ['/opt/wheels'],
      },
      npm: 'https://registry.npmjs.org/',
    });
    expect(JSON.stringify(indexes)).not.toContain('hunter2');
    expect(indexes.problems).toEqual(["mirror.example.org: the index URL's user and password are not given to runs"]);
  });

  it('takes runtime.indexes in place of discovery, a folder index as its file URL', () => {
    const indexes = readIndexes(
      { pip: ['http://index.test:8080/simple', '/srv/pypi/simple'], findLinks: [], npm: 'http://index.test:8080/npm/' },
      none,
    );
    expect(indexes).toMatchObject({
      source: 'config',
      pip: { index: 'http://index.test:8080/simple', extra: ['file:///srv/pypi/simple'], findLinks: [] },
      npm: 'http://index.test:8080/npm/',
    });
    const empty = readIndexes({ pip: ['ftp://old.example.org/simple'], findLinks: [] }, none);
    expect(empty.pip.index).toBe(DEFAULT_PIP_INDEX);
    expect(empty.npm).toBe(DEFAULT_NPM_REGISTRY);
    expect(empty.problems[0]).toMatch(/^ftp: indexes are not supported/);
  });
});

describe('what a run gets of them', () => {
  const indexes = (pip: PackageIndexes['pip'], npm = DEFAULT_NPM_REGISTRY): PackageIndexes => ({
    source: 'config',
    pip,
    npm,
    problems: [],
  });

  it('PyPI brings its files host; an http index its host:port; npm its registry', () => {
    const access = indexAccess(
      indexes({ index: DEFAULT_PIP_INDEX, extra: ['http://index.test:8080/simple'], findLinks: [] }),
    );
    expect(access.hosts).toEqual([
      'pypi.org:443',
      'files.pythonhosted.org:443',
      'index.test:8080',
      'registry.npmjs.org:443',
    ]);
    expect(access.folders).toEqual([]);
  });

  it('binds a file:// simple index with its parent (where its files are) and find-links folders as they are', () => {
    const access = indexAccess(
      indexes({
        index: 'file:///opt/pypi/simple',
        extra: ['file:///srv/flat/'],
        findLinks: ['/opt/wheels', 'file:///opt/more-wheels', 'https://wheels.example.org/list.html'],
      }),
    );
    expect(access.folders).toEqual(['/opt/pypi', '/srv/flat', '/opt/wheels', '/opt/more-wheels']);
    expect(access.hosts).toEqual(['registry.npmjs.org:443', 'wheels.example.org:443']);
  });

  it('refuses to bind a folder the sandbox uses, or one that holds one', () => {
    const access = indexAccess(
      indexes({ index: DEFAULT_PIP_INDEX, extra: [], findLinks: ['/', '/opt', '/workspace/x', '/etc/ssl', '/srv/ok'] }),
    );
    expect(access.folders).toEqual(['/srv/ok']);
    expect(access.problems).toHaveLength(4);
  });
});

describe('discovery on this machine', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-indexes-'));
    // The runtime's venv python, as far as `-m pip config list` goes.
    const bin = path.join(tmp, 'python', 'bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(tmp, 'pip-config.txt'), PIP_CONFIG);
    fs.writeFileSync(
      path.join(bin, 'python3'),
      `#!/bin/sh\n[ "$*" = "-m pip config list" ] && exec cat ${JSON.stringify(path.join(tmp, 'pip-config.txt'))}\nexit 2\n`,
      { mode: 0o755 },
    );
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("asks the runtime's pip and npm, once per process", async () => {
    const settings = { dir: tmp, python: '/nonexistent/python3' };
    const first = await packageIndexes(settings);
    expect(first.source).toBe('discovered');
    expect(first.pip.extra).toEqual(['file:///opt/pypi/simple', 'https://mirror.example.org/simple']);
    expect(first.pip.findLinks).toEqual(['/opt/wheels']);
    expect(first.npm).toMatch(/^https?:\/\//);
    fs.writeFileSync(path.join(tmp, 'pip-config.txt'), '');
    expect(await packageIndexes(settings)).toBe(first);
  });

  it('says so when pip cannot be asked, and uses PyPI', async () => {
    const indexes = await packageIndexes({ dir: path.join(tmp, 'none'), python: '/nonexistent/python3' });
    expect(indexes.pip.index).toBe(DEFAULT_PIP_INDEX);
    expect(indexes.problems.some((p) => p.startsWith("pip's configuration could not be read"))).toBe(true);
  });
});
