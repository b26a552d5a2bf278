/**
 * The CLI as people run it: every test spawns the real `bin/skills` (shell wrapper -> node -> the esbuild bundle of
 * bin/skills.ts, rebuilt first so it is the bundle of these sources) and checks what it prints and its exit code.
 * Messages are compared exactly where skills-ref defines them.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens, renderCatalog } from '../server/skills/catalog/catalog';
import type { ListJson } from './cli/list';

const PROJECT = path.resolve(import.meta.dirname, '..');
const SKILLS = path.join(PROJECT, 'bin', 'skills');
const BUNDLED = path.join(PROJECT, '.skills');
const VALIDATE_FIXTURES = path.join(PROJECT, 'server', 'skills', 'fixtures', 'validate');
const RESOURCE_FIXTURES = path.join(PROJECT, 'server', 'skills', 'fixtures', 'resources');
const BUNDLED_NAMES = fs
  .readdirSync(BUNDLED, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

let tmp: string;
let home: string;

beforeAll(async () => {
  await buildBundle();
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'skills-cli-')));
  home = path.join(tmp, 'home');
  fs.mkdirSync(home);
});

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** `npm run build:cli`, so the spawned CLI runs these sources and not a bundle left from an earlier install. */
function buildBundle(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(PROJECT, 'bin', 'build-cli.mjs')], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`build-cli exited with ${code}`))));
  });
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI with no skillchat settings from the environment and an empty home, so only the test decides.
 * Asynchronous on purpose: a blocking spawnSync starves the vitest worker's RPC and fails the run on a slow machine.
 */
function spawnCli(
  file: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('SKILLCHAT_')) delete env[key];
  // The scan cache goes to the test's home too, never to the person's ~/.cache.
  Object.assign(env, { SKILLCHAT_HOME: home, SKILLCHAT_CACHE_DIR: path.join(home, 'cache') }, options.env);
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd ?? PROJECT,
      env,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const skills = (args: string[], options?: { cwd?: string; env?: Record<string, string> }) =>
  spawnCli(SKILLS, args, options);

/** Escapes a path for use inside a RegExp. */
const re = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function writeSkill(dir: string, frontmatter: string, body = '# Instructions\n\nDo the thing.\n'): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'SKILL.md'), `---\n${frontmatter}\n---\n${body}`);
  return dir;
}

describe('wrapper', () => {
  it('runs the bundle with node, and the TypeScript sources through tsx on request, with the same output', async () => {
    const bundled = await skills(['--version']);
    const fromSource = await skills(['--version'], { env: { SKILLS_FROM_SOURCE: '1' } });
    expect(bundled).toEqual({ code: 0, stdout: expect.stringMatching(/^skills, version /), stderr: '' });
    expect(fromSource).toEqual(bundled);
    expect(fs.existsSync(path.join(PROJECT, 'bin', 'dist', 'skills.cjs'))).toBe(true);
  });

  it('starts the commands that open no connection without NODE_EXTRA_CA_CERTS, and keeps it for the others', async () => {
    // Node reads the file at start and warns when it cannot: the warning shows whether node was given the variable.
    const env = { NODE_EXTRA_CA_CERTS: path.join(tmp, 'no-such-ca.pem') };
    const warned = (run: Run) => run.stderr.includes('Ignoring extra certs');
    const offline = [
      ['validate', `${VALIDATE_FIXTURES}/valid`],
      ['list', '--root', '.skills'],
      ['match', '--root', '.skills', 'write a commit message'],
      ['to-prompt', '.skills/commit-message'],
    ];
    for (const args of offline) {
      const run = await skills(args, { env });
      expect({ args, code: run.code, warned: warned(run) }).toEqual({ args, code: 0, warned: false });
    }
    // `install` may fetch an index or clone over HTTPS: a proxy's CA must still reach it.
    expect(warned(await skills(['install'], { env }))).toBe(true);
  });

  it('without the bundle, says so and how to build it, then runs the sources through tsx', async () => {
    // A project folder with the wrapper, a stand-in bin/skills.ts, this project's tsx and no bin/dist/.
    const project = path.join(tmp, 'no-bundle');
    fs.mkdirSync(path.join(project, 'bin'), { recursive: true });
    fs.mkdirSync(path.join(project, 'node_modules', '.bin'), { recursive: true });
    fs.copyFileSync(SKILLS, path.join(project, 'bin', 'skills'));
    fs.chmodSync(path.join(project, 'bin', 'skills'), 0o755);
    fs.writeFileSync(path.join(project, 'bin', 'skills.ts'), "console.log('from source', process.argv.slice(2));\n");
    fs.copyFileSync(path.join(PROJECT, 'tsconfig.json'), path.join(project, 'tsconfig.json'));
    fs.symlinkSync(
      path.join(PROJECT, 'node_modules', '.bin', 'tsx'),
      path.join(project, 'node_modules', '.bin', 'tsx'),
    );
    const run = await spawnCli(path.join(project, 'bin', 'skills'), ['validate', 'x'], { cwd: os.tmpdir() });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("from source [ 'validate', 'x' ]\n");
    expect(run.stderr).toBe(
      `skills: ${project}/bin/dist/skills.cjs is missing, running the TypeScript sources through tsx (slower); ` +
        '`npm run build:cli` builds it\n',
    );
  });
});

describe('bundled skills', () => {
  it('ships the conformance skill and at least two others', async () => {
    expect(BUNDLED_NAMES).toContain('skills-system-validation');
    expect(BUNDLED_NAMES.length).toBeGreaterThanOrEqual(3);
  });

  it.each(BUNDLED_NAMES)('%s passes skills-ref validation', async (name) => {
    expect(await skills(['validate', `.skills/${name}`])).toEqual({
      code: 0,
      stdout: `Valid skill: .skills/${name}\n`,
      stderr: '',
    });
  });

  it('all load without a single diagnostic, each with a references/ file', async () => {
    const run = await skills(['list', '--root', '.skills', '--json']);
    expect(run.code).toBe(0);
    const data: ListJson = JSON.parse(run.stdout);
    expect(data.skills.map((s) => s.name)).toEqual(BUNDLED_NAMES);
    expect(data.diagnostics).toEqual([]);
    expect(data.collisions).toEqual([]);
    for (const skill of data.skills) {
      expect(skill.status).toBe('ok');
      expect(skill.diagnostics).toEqual([]);
      expect(fs.readdirSync(path.join(skill.dir, 'references')).length).toBeGreaterThan(0);
    }
  });

  it('the conformance skill points at its three resources, which hold the markers', async () => {
    const dir = path.join(BUNDLED, 'skills-system-validation');
    const instructions = fs.readFileSync(path.join(dir, 'SKILL.md'), 'utf8');
    for (const file of ['references/REFERENCE.md', 'assets/fixture.json', 'scripts/echo.sh']) {
      expect(instructions).toContain(`\`${file}\``);
    }
    // The markers must come from reading the files, so the instructions must not give them away.
    expect(instructions).not.toContain('SKILLCHAT_CONFORMANCE_REFERENCE_v1');
    expect(instructions).not.toContain('SKILLCHAT_SKILLS_SCRIPT_OK');
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'assets', 'fixture.json'), 'utf8'))).toMatchObject({
      fixture_id: 'skills-system-validation',
    });
  });

  it('the conformance script is executable and prints its marker', async () => {
    const script = path.join(BUNDLED, 'skills-system-validation', 'scripts', 'echo.sh');
    expect(fs.statSync(script).mode & 0o111).not.toBe(0);
    const run = await spawnCli(script, []);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('SKILLCHAT_SKILLS_SCRIPT_OK\n');
  });

  it("csv-to-json's script converts its sample, quoted fields and leading zeros included", async () => {
    const dir = path.join(BUNDLED, 'csv-to-json');
    const run = await spawnCli(process.execPath, ['scripts/csv-to-json.mjs', 'assets/sample.csv'], { cwd: dir });
    expect(run.code).toBe(0);
    const records = JSON.parse(run.stdout);
    expect(records).toHaveLength(4);
    expect(records[0]).toEqual({
      id: 1,
      name: 'Smith, Jane',
      city: 'Berlin',
      score: 9.5,
      active: true,
      zip: '01067',
      notes: 'Said "hello"',
    });
    expect(records[1].notes).toBe('two\nlines');
    expect(records[3]._extra).toEqual(['field']);
    expect(run.stderr).toBe('warning: line 7: 8 fields, header has 7\n');
  });
});

describe('validate', () => {
  it('takes a path to SKILL.md as its folder', async () => {
    expect(await skills(['validate', '.skills/commit-message/SKILL.md'])).toEqual({
      code: 0,
      stdout: 'Valid skill: .skills/commit-message\n',
      stderr: '',
    });
  });

  it('prints the path as given (normalised like pathlib), from any working directory', async () => {
    expect((await skills(['validate', `${BUNDLED}/csv-to-json/`], { cwd: tmp })).stdout).toBe(
      `Valid skill: ${BUNDLED}/csv-to-json\n`,
    );
  });

  it('lists every problem on stderr and exits 1', async () => {
    expect(await skills(['validate', 'uppercase-name'], { cwd: VALIDATE_FIXTURES })).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'Validation failed for uppercase-name:\n' +
        "  - Skill name 'Uppercase-Name' must be lowercase\n" +
        "  - Directory name 'uppercase-name' must match skill name 'Uppercase-Name'\n",
    });
  });

  it.each([
    ['name-mismatch', "Directory name 'name-mismatch' must match skill name 'other-name'"],
    [
      'unknown-field',
      "Unexpected fields in frontmatter: author, version. Only ['allowed-tools', 'compatibility', 'description', " +
        "'license', 'metadata', 'name'] are allowed.",
    ],
    ['no-frontmatter', 'SKILL.md must start with YAML frontmatter (---)'],
    ['missing-description', 'Missing required field in frontmatter: description'],
  ])('%s: skills-ref message', async (fixture, message) => {
    expect(await skills(['validate', fixture], { cwd: VALIDATE_FIXTURES })).toEqual({
      code: 1,
      stdout: '',
      stderr: `Validation failed for ${fixture}:\n  - ${message}\n`,
    });
  });

  it('reports a folder without SKILL.md', async () => {
    const dir = path.join(tmp, 'empty-folder');
    fs.mkdirSync(dir);
    expect(await skills(['validate', dir])).toEqual({
      code: 1,
      stdout: '',
      stderr: `Validation failed for ${dir}:\n  - Missing required file: SKILL.md\n`,
    });
  });

  it('refuses a path that does not exist as a usage error (exit 2), like click', async () => {
    expect(await skills(['validate', 'no/such/skill'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'Usage: skills validate [OPTIONS] SKILL_PATH\n' +
        "Try 'skills validate --help' for help.\n\n" +
        "Error: Invalid value for 'SKILL_PATH': Path 'no/such/skill' does not exist.\n",
    });
  });

  it('needs exactly one path', async () => {
    expect((await skills(['validate'])).stderr).toContain("Error: Missing argument 'SKILL_PATH'.\n");
    const extra = await skills(['validate', '.skills/csv-to-json', '.skills/commit-message']);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain('Error: Got unexpected extra argument (.skills/commit-message)\n');
  });
});

describe('read-properties', () => {
  it('prints the properties as skills-ref does: its key order, 2-space indent', async () => {
    expect(await skills(['read-properties', 'all-fields/SKILL.md'], { cwd: VALIDATE_FIXTURES })).toEqual({
      code: 0,
      stderr: '',
      stdout: `${JSON.stringify(
        {
          name: 'all-fields',
          description: 'Uses every field the spec allows.',
          license: 'Apache-2.0',
          compatibility: 'Requires git and network access',
          'allowed-tools': 'Bash(git:*) Read',
          metadata: { author: 'Example Org', version: '1.0' },
        },
        null,
        2,
      )}\n`,
    });
  });

  it('escapes non-ASCII like Python json.dumps', async () => {
    const run = await skills(['read-properties', 'xml-special'], { cwd: VALIDATE_FIXTURES });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      String.raw`"Use <foo> & \"bar\" with 'baz'; \u00fcn\u00efc\u00f6d\u00e9 \ud83d\ude00"`,
    );
  });

  it('prints the error after "Error: " and exits 1', async () => {
    expect(await skills(['read-properties', 'missing-description'], { cwd: VALIDATE_FIXTURES })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error: Missing required field in frontmatter: description\n',
    });
  });
});

describe('to-prompt', () => {
  it('prints the <available_skills> block, escaped, with absolute locations', async () => {
    const run = await skills(['to-prompt', '.skills/commit-message', `${VALIDATE_FIXTURES}/xml-special/SKILL.md`]);
    const description = fs
      .readFileSync(path.join(BUNDLED, 'commit-message', 'SKILL.md'), 'utf8')
      .match(/^description: (.*)$/m)![1]!;
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        '<available_skills>',
        '<skill>',
        '<name>',
        'commit-message',
        '</name>',
        '<description>',
        description,
        '</description>',
        '<location>',
        path.join(BUNDLED, 'commit-message', 'SKILL.md'),
        '</location>',
        '</skill>',
        '<skill>',
        '<name>',
        'xml-special',
        '</name>',
        '<description>',
        'Use &lt;foo&gt; &amp; &quot;bar&quot; with &#x27;baz&#x27;; ünïcödé 😀',
        '</description>',
        '<location>',
        path.join(VALIDATE_FIXTURES, 'xml-special', 'SKILL.md'),
        '</location>',
        '</skill>',
        '</available_skills>\n',
      ].join('\n'),
    });
  });

  it('stops at a skill it cannot read: "Error: ...", exit 1', async () => {
    expect(await skills(['to-prompt', '.skills/commit-message', `${VALIDATE_FIXTURES}/no-frontmatter`])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error: SKILL.md must start with YAML frontmatter (---)\n',
    });
  });

  it('needs at least one path', async () => {
    const run = await skills(['to-prompt']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Error: Missing argument 'SKILL_PATHS...'.\n");
  });
});

describe('list', () => {
  let first: string;
  let second: string;

  beforeAll(() => {
    first = path.join(tmp, 'roots', 'first');
    second = path.join(tmp, 'roots', 'second');
    writeSkill(path.join(first, 'dup'), 'name: dup\ndescription: The copy in the first root.');
    writeSkill(path.join(first, 'alpha'), 'name: alpha\ndescription: Alpha skill.\nversion: 2');
    writeSkill(path.join(second, 'dup'), 'name: dup\ndescription: The copy in the second root.');
    writeSkill(path.join(second, 'broken'), 'name: broken');
  });

  it('--json: skills with status, collisions (winner + losers), not-loaded diagnostics, roots, catalog tokens', async () => {
    const missing = path.join(tmp, 'roots', 'missing');
    const run = await skills(['list', '--json', '--root', first, '--root', second, `--root=${missing}`]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const data: ListJson = JSON.parse(run.stdout);

    expect(data.skills.map((s) => [s.name, s.status, s.root, s.relDir, s.scope])).toEqual([
      ['alpha', 'warnings', first, 'alpha', 'project'],
      ['dup', 'ok', first, 'dup', 'project'],
    ]);
    expect(data.skills[0]!.diagnostics.map((d) => d.message)).toEqual([
      "Unexpected fields in frontmatter: version. Only ['allowed-tools', 'compatibility', 'description', " +
        "'license', 'metadata', 'name'] are allowed.",
    ]);
    expect(data.skills[1]!.description).toBe('The copy in the first root.');
    expect(data.collisions).toEqual([
      { name: 'dup', winner: path.join(first, 'dup'), losers: [path.join(second, 'dup')] },
    ]);
    expect(data.roots).toEqual([
      { path: first, scope: 'project', kind: 'configured', exists: true, skillCount: 2 },
      { path: second, scope: 'project', kind: 'configured', exists: true, skillCount: 0 },
      { path: missing, scope: 'project', kind: 'configured', exists: false, skillCount: 0 },
    ]);
    const codes = data.diagnostics.map((d) => [d.severity, d.code, d.skillDir ?? d.root]);
    expect(codes).toContainEqual(['error', expect.any(String), path.join(second, 'broken')]);
    expect(codes).toContainEqual(['warning', 'name-collision', path.join(second, 'dup')]);
    expect(codes).toContainEqual(['warning', 'root-missing', missing]);
    expect(data.catalogTokens).toBe(countTokens(renderCatalog(data.skills)));
    expect(typeof data.scannedAt).toBe('number');
    expect(typeof data.durationMs).toBe('number');
    // Printed as JSON.stringify(data, null, 2) prints it, though the lines after the scan's time are made apart.
    expect(run.stdout).toBe(`${JSON.stringify(data, null, 2)}\n`);
  });

  it('human format: roots, skills with their problems, not loaded, collisions, summary', async () => {
    const run = await skills(['list', '--root', first, '--root', second]);
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(out).toMatch(/^Roots \(highest precedence first\)\n {2}# +SCOPE +KIND +SKILLS +PATH\n/);
    expect(out).toMatch(new RegExp(`\\n {2}1 +project +configured +2 +${re(first)}\\n`));
    expect(out).toMatch(new RegExp(`\\n {2}alpha +warnings +project +${re(path.join(first, 'alpha'))}\\n {6}warning`));
    expect(out).toMatch(
      new RegExp(
        `\\nNot loaded \\(1\\)\\n {2}${re(path.join(second, 'broken'))}\\n {6}error +[a-z-]+: ` +
          'Missing required field in frontmatter: description\\n',
      ),
    );
    expect(out).toContain(
      `\nCollisions (1)\n  dup\n      wins:     ${path.join(first, 'dup')}\n` +
        `      shadowed: ${path.join(second, 'dup')}\n`,
    );
    expect(out).toMatch(/\n2 skills loaded, 1 folder not loaded, 1 collision; catalog \d+ tokens \(o200k\)\.\n$/);
  });

  it('without --root, scans the configured roots', async () => {
    const run = await skills(['list', '--json'], { env: { SKILLCHAT_SKILL_ROOTS: second } });
    const data: ListJson = JSON.parse(run.stdout);
    expect(data.roots.map((r) => r.path)).toEqual([second]);
    expect(data.skills.map((s) => s.name)).toEqual(['dup']);
    expect(data.collisions).toEqual([]);
  });

  it('keeps its scan cache between runs and sees an edit made in between', async () => {
    const dir = path.join(tmp, 'cached-root');
    writeSkill(path.join(dir, 'cached'), 'name: cached\ndescription: Before the edit.');
    const cacheDir = path.join(tmp, 'cli-cache');
    const list = async () =>
      JSON.parse((await skills(['list', '--json', '--root', dir], { env: { SKILLCHAT_CACHE_DIR: cacheDir } })).stdout);
    const first: ListJson = await list();
    expect(fs.readdirSync(cacheDir).filter((f) => f.startsWith('scan-'))).toHaveLength(1);
    const kept = await skills(['list', '--json', '--root', dir], { env: { SKILLCHAT_CACHE_DIR: cacheDir } });
    const again: ListJson = JSON.parse(kept.stdout);
    expect(kept.stdout).toBe(`${JSON.stringify(again, null, 2)}\n`);
    expect(again.skills).toEqual(first.skills);
    expect(again.catalogTokens).toBe(first.catalogTokens);
    writeSkill(path.join(dir, 'cached'), 'name: cached\ndescription: After the edit, with more words in it.');
    const edited: ListJson = await list();
    expect(edited.skills[0]?.description).toBe('After the edit, with more words in it.');
    expect(edited.catalogTokens).toBeGreaterThan(first.catalogTokens);
  });

  it('without --root or settings, scans the default roots starting with the app folder', async () => {
    const data: ListJson = JSON.parse((await skills(['list', '--json'], { cwd: tmp })).stdout);
    expect(data.roots[0]).toMatchObject({ path: BUNDLED, kind: 'app', exists: true });
    expect(data.roots.at(-1)).toMatchObject({ path: path.join(home, '.skillchat', 'skills'), exists: false });
    expect(data.skills.map((s) => s.name)).toEqual(expect.arrayContaining(BUNDLED_NAMES));
  });

  it('reports a broken config file instead of crashing', async () => {
    const appDir = path.join(tmp, 'bad-app');
    fs.mkdirSync(appDir);
    fs.writeFileSync(path.join(appDir, 'skillchat.config.json'), '{"skillRoots": 3}');
    const run = await skills(['list'], { env: { SKILLCHAT_APP_DIR: appDir } });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^Error: skillchat\.config\.json: skillRoots: .+\n$/);
  });
});

describe('read-resource', () => {
  const conformance = '.skills/skills-system-validation';

  it('prints the file as the tool returns it', async () => {
    const run = await skills(['read-resource', conformance, 'references/REFERENCE.md']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(
      fs.readFileSync(path.join(BUNDLED, 'skills-system-validation/references/REFERENCE.md'), 'utf8'),
    );
    expect(run.stdout).toContain('SKILLCHAT_CONFORMANCE_REFERENCE_v1');
  });

  it('reads assets and scripts too, with ./ and SKILL.md paths normalised', async () => {
    const fixture = await skills(['read-resource', `${conformance}/SKILL.md`, './assets//fixture.json']);
    expect(JSON.parse(fixture.stdout)).toMatchObject({ fixture_id: 'skills-system-validation' });
    expect((await skills(['read-resource', conformance, 'scripts/echo.sh'])).stdout).toContain(
      'echo "SKILLCHAT_SKILLS_SCRIPT_OK"',
    );
  });

  it('adds the truncation notice after the cut content', async () => {
    const run = await skills(['read-resource', '--max-bytes', '40', conformance, 'references/REFERENCE.md']);
    const full = fs.readFileSync(path.join(BUNDLED, 'skills-system-validation/references/REFERENCE.md'));
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      `${full.subarray(0, 40).toString('utf8')}\n[truncated: showing the first 40 of ${full.length} bytes]\n`,
    );
  });

  it('describes a binary file instead of dumping it', async () => {
    const logo = path.join(RESOURCE_FIXTURES, 'basic', 'assets', 'logo.png');
    const run = await skills(['read-resource', path.join(RESOURCE_FIXTURES, 'basic'), 'assets/logo.png']);
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: `Binary file assets/logo.png (image/png, ${fs.statSync(logo).size} bytes) — not shown.\n`,
    });
  });

  it.each([
    ['../SKILL.md', 'Error: Path "../SKILL.md" is not allowed: ".." segments are not permitted\n'],
    ['/etc/passwd', /^Error: Path "\/etc\/passwd" is not allowed: absolute paths are not permitted/],
    ['references/../../csv-to-json/SKILL.md', /^Error: Path ".+" is not allowed: "\.\." segments are not permitted/],
    [
      'references/missing.md',
      'Error: File "references/missing.md" does not exist in skill "skills-system-validation"\n',
    ],
  ])('refuses %s with the tool error, exit 1, no absolute path', async (relPath, message) => {
    const run = await skills(['read-resource', path.join(BUNDLED, 'skills-system-validation'), relPath]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    if (typeof message === 'string') expect(run.stderr).toBe(message);
    else expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toContain(PROJECT);
    expect(run.stderr).not.toContain(tmp);
  });

  it('refuses a link that leads outside the skill folder', async () => {
    const skill = writeSkill(path.join(tmp, 'linking', 'linker'), 'name: linker\ndescription: Links out.');
    fs.writeFileSync(path.join(tmp, 'linking', 'secret.txt'), 'SECRET');
    fs.symlinkSync('../secret.txt', path.join(skill, 'leak.txt'));
    const run = await skills(['read-resource', skill, 'leak.txt']);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error: Path "leak.txt" is not allowed: it leads outside the skill folder\n',
    });
  });
});

describe('match', () => {
  it('prints the matching skill names, best first', async () => {
    expect(await skills(['match', '--root', '.skills', 'write a commit message for my staged changes'])).toEqual({
      code: 0,
      stdout: 'commit-message\n',
      stderr: '',
    });
    expect((await skills(['match', '--root', '.skills', 'convert', 'this', 'CSV', 'to', 'JSON'])).stdout).toBe(
      'csv-to-json\n',
    );
    expect((await skills(['match', '--root', '.skills', 'validate the skills system'])).stdout).toBe(
      'skills-system-validation\n',
    );
  });

  it('prints nothing on stdout and exits 1 when no skill is relevant, naming the nearest on stderr', async () => {
    const none = await skills(['match', '--root', '.skills', "what's the weather like today?"]);
    expect(none).toMatchObject({ code: 1, stdout: '' });
    expect(none.stderr).toMatch(/^No skill matched.*a match needs a score of at least 0\.45/);
    // A near miss names the skill that came nearest, with its score below the threshold.
    const near = await skills(['match', '--root', '.skills', 'write notes']);
    expect(near).toMatchObject({ code: 1, stdout: '' });
    expect(near.stderr).toMatch(/Nearest: [a-z-]+ 0\.(?:[0-3]\d|4[0-4])\b/);
  });

  it('--scores adds the relevance after a tab', async () => {
    expect((await skills(['match', '--scores', '--root', '.skills', 'convert csv to json'])).stdout).toMatch(
      /^csv-to-json\t(0\.\d{3}|1\.000)\n$/,
    );
  });
});

describe('usage', () => {
  it('--help and help print the usage on stdout, exit 0', async () => {
    for (const args of [['--help'], ['help']]) {
      const run = await skills(args);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^Usage: skills \[OPTIONS\] COMMAND \[ARGS\]\.\.\.\n/);
      for (const command of ['validate', 'read-properties', 'to-prompt', 'list', 'match', 'read-resource']) {
        expect(run.stdout).toMatch(new RegExp(`\\n {2}${command} +\\S`));
      }
    }
  });

  it('help COMMAND shows the command help', async () => {
    const run = await skills(['help', 'read-resource']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: skills read-resource \[OPTIONS\] SKILL_DIR PATH\n/);
    expect(run.stdout).toContain('--max-bytes N');
  });

  it('an unknown command or none prints the usage on stderr, exit 2', async () => {
    const unknown = await skills(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/^Usage: skills \[OPTIONS\] COMMAND/);
    expect(unknown.stderr).toMatch(/\nError: No such command 'frobnicate'\.\n$/);
    const none = await skills([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^Usage: skills /);
  });

  it('an unknown option is a usage error', async () => {
    expect(await skills(['list', '--bogus'])).toEqual({
      code: 2,
      stdout: '',
      stderr: "Usage: skills list [OPTIONS]\nTry 'skills list --help' for help.\n\nError: No such option: --bogus\n",
    });
  });

  it('works through a chain of symlinks from another folder, as npm links it', async () => {
    const linkDir = path.join(tmp, 'links');
    fs.mkdirSync(path.join(linkDir, 'a'), { recursive: true });
    fs.mkdirSync(path.join(linkDir, 'b'));
    fs.symlinkSync(SKILLS, path.join(linkDir, 'a', 'skills'));
    fs.symlinkSync('../a/skills', path.join(linkDir, 'b', 'skills'));
    const run = await spawnCli(path.join(linkDir, 'b', 'skills'), ['--version'], { cwd: os.tmpdir() });
    const pkg = JSON.parse(fs.readFileSync(path.join(PROJECT, 'package.json'), 'utf8'));
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`skills, version ${pkg.version}\n`);
  });
});
