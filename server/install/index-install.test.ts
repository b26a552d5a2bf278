/**
 * Installing from a skills index: skillchat's own `/.well-known/agent-skills/index.json` (v0.2.0, every
 * file with its digest), built here by the same code the route uses and served from 127.0.0.1, and the RFC's
 * newer `$schema` form (one SKILL.md or one archive per skill). Every digest is checked; a tampered file or index
 * is refused before anything is installed.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeZip, skillMd } from '../../test/install/test-zip';
import { DEFAULT_LIMITS } from '../config';
import { createPublisher, readPublishedFile } from '../skill-server/publication';
import { wellKnownIndex } from '../skill-server/well-known';
import { fileDigest } from '../skills/digests';
import { loadSkill } from '../skills/load/skill-file';
import type { Skill } from '../skills/types';
import { type InstallOptions, installSkill } from './install';
import { InstallError } from './problems';

const LIMITS = { maxFiles: 50, maxBytes: 4 * 1024 * 1024, maxRatio: 100, maxDownloadBytes: 8 * 1024 * 1024 };

let tmp: string;
let root: string;
let source: Skill;
/** What the test server answers, by path; a test may replace an answer to tamper with it. */
let routes: Map<string, Buffer>;
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const body = routes.get(decodeURIComponent(req.url ?? ''));
    if (body) res.end(body);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

beforeEach(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-index-install-'));
  root = path.join(tmp, 'installed');
  const dir = path.join(tmp, 'published', 'report-writer');
  fs.mkdirSync(path.join(dir, 'scripts'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'SKILL.md'), skillMd('report-writer'));
  fs.writeFileSync(path.join(dir, 'scripts', 'build report.py'), 'print("report")\n');
  fs.writeFileSync(path.join(dir, 'assets', 'logo.bin'), Buffer.from([0, 1, 2, 255, 254]));
  const loaded = await loadSkill(dir, {
    root: path.dirname(dir),
    scope: 'project',
    relDir: 'report-writer',
    limits: DEFAULT_LIMITS,
  });
  source = loaded.skill!;
  routes = await skillchatIndex(source);
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** skillchat's own well-known index and files for `skill`, as `app/.well-known/agent-skills` serves them. */
async function skillchatIndex(skill: Skill): Promise<Map<string, Buffer>> {
  const publication = await createPublisher().publish(skill);
  if (!publication.ok) throw new Error(publication.reason);
  const out = new Map<string, Buffer>();
  out.set(
    '/.well-known/agent-skills/index.json',
    Buffer.from(JSON.stringify(wellKnownIndex([{ skill, published: publication.skill }]))),
  );
  for (const file of publication.skill.files) {
    const read = await readPublishedFile(skill, publication.skill, file.path);
    out.set(`/.well-known/agent-skills/${skill.name}/${file.path}`, read!.data);
  }
  return out;
}

function options(extra: Partial<InstallOptions> = {}): InstallOptions {
  // The test server is on loopback, which URL installs may reach only when the operator allows it.
  return { root, install: { ...LIMITS, allowHosts: ['127.0.0.1'] }, limits: DEFAULT_LIMITS, ...extra };
}

async function refusal(run: Promise<unknown>): Promise<string[]> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InstallError);
  return (error as InstallError).problems.map((p) => p.code);
}

const indexUrl = () => `${base}/.well-known/agent-skills/index.json`;
const indexJson = () =>
  JSON.parse(routes.get('/.well-known/agent-skills/index.json')!.toString()) as {
    version: string;
    skills: Array<{ name: string; digest: string; files: Array<{ path: string; digest: string }> }>;
  };
const setIndex = (index: unknown) =>
  routes.set('/.well-known/agent-skills/index.json', Buffer.from(JSON.stringify(index)));

function installedFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const abs = path.join(entry.parentPath, entry.name);
      out[path.relative(dir, abs).split(path.sep).join('/')] = fs.readFileSync(abs).toString('base64');
    }
  }
  return out;
}

describe("installing from skillchat's own index (v0.2.0)", () => {
  it('fetches every file, checks each digest and the skill digest, and installs the same bytes', async () => {
    expect(indexJson().version).toBe('0.2.0');
    const result = await installSkill({ kind: 'url', url: indexUrl() }, options());
    expect(result).toMatchObject({ name: 'report-writer', applied: true });
    expect(installedFiles(path.join(root, 'report-writer'))).toEqual(installedFiles(source.dir));
  });

  it('refuses a file whose bytes do not match its digest, leaving nothing installed', async () => {
    routes.set('/.well-known/agent-skills/report-writer/scripts/build report.py', Buffer.from('print("evil")\n'));
    expect(await refusal(installSkill({ kind: 'url', url: indexUrl() }, options()))).toEqual(['digest-mismatch']);
    expect(fs.existsSync(path.join(root, 'report-writer'))).toBe(false);
  });

  it('refuses an index whose skill digest does not match its files', async () => {
    const index = indexJson();
    index.skills[0]!.digest = fileDigest('something else');
    setIndex(index);
    expect(await refusal(installSkill({ kind: 'url', url: indexUrl() }, options()))).toEqual(['digest-mismatch']);
  });

  it('refuses paths that leave the skill folder before fetching anything', async () => {
    const index = indexJson();
    index.skills[0]!.files.push({ path: '../../escape.sh', digest: fileDigest('x') });
    setIndex(index);
    expect(await refusal(installSkill({ kind: 'url', url: indexUrl() }, options()))).toContain('parent-path');
  });

  it('refuses a v0.1.0 file list (no digests) and an unknown major version', async () => {
    setIndex({ version: '0.1.0', skills: [{ name: 'report-writer', digest: fileDigest('x'), files: ['SKILL.md'] }] });
    expect(await refusal(installSkill({ kind: 'url', url: indexUrl() }, options()))).toContain('index-invalid');
    setIndex({ ...indexJson(), version: '1.0.0' });
    expect(await refusal(installSkill({ kind: 'url', url: indexUrl() }, options()))).toContain('index-invalid');
  });
});

describe('installing from the $schema form', () => {
  it('installs a single SKILL.md artifact after checking its digest', async () => {
    const md = skillMd('one-file');
    routes.set('/one-file/SKILL.md', Buffer.from(md));
    setIndex({
      $schema: 'https://schemas.agentskills.io/discovery/0.2.0/schema.json',
      skills: [
        {
          name: 'one-file',
          type: 'skill-md',
          description: 'One file.',
          url: '/one-file/SKILL.md',
          digest: fileDigest(md),
        },
      ],
    });
    expect(await installSkill({ kind: 'url', url: indexUrl() }, options())).toMatchObject({ name: 'one-file' });
    expect(fs.readFileSync(path.join(root, 'one-file', 'SKILL.md'), 'utf8')).toBe(md);
  });

  it('installs an archive artifact, and refuses one whose digest differs', async () => {
    const zip = await makeZip([
      { name: 'zipped/SKILL.md', content: skillMd('zipped') },
      { name: 'zipped/references/a.md', content: '# A\n' },
    ]);
    // Relative to the index: /.well-known/agent-skills/zipped.zip.
    routes.set('/.well-known/agent-skills/zipped.zip', zip);
    const entry = { name: 'zipped', type: 'archive', url: 'zipped.zip', digest: fileDigest('not the zip') };
    setIndex({ $schema: 'https://example.org/schema.json', skills: [entry] });
    expect(await refusal(installSkill({ kind: 'url', url: indexUrl() }, options()))).toEqual(['digest-mismatch']);
    setIndex({ $schema: 'https://example.org/schema.json', skills: [{ ...entry, digest: fileDigest(zip) }] });
    expect(await installSkill({ kind: 'url', url: indexUrl() }, options())).toMatchObject({ name: 'zipped' });
    expect(fs.readFileSync(path.join(root, 'zipped', 'references', 'a.md'), 'utf8')).toBe('# A\n');
  });
});
