/**
 * The official MCP conformance suite, pinned (suite.ts), against skillchat on both sides: its server scenarios
 * against `POST /mcp` (skill-server.ts: the real handler behind the proxy's and the route's checks, fixture skills
 * in `skills/`), its client scenarios against skillchat's MCP client (client-driver.ts, bundled with esbuild so
 * each scenario starts it in a fraction of a second, not tsx's many; run under the Node that runs the tests, as the
 * app is). Every
 * scenario passes unless expected.ts says it does not apply or is pending. Loopback only; the suite is installed by
 * `bin/test-prereqs.ts`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { client, judge, type ScenarioRow, server } from './expected';
import { type ConformanceSkillServer, startConformanceSkillServer } from './skill-server';
import { type ConformanceSuite, installedSuite, listScenarios, runSuite, type SuiteResults } from './suite';

const ROOT = path.resolve(import.meta.dirname, '../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-conformance-run-'));
const driver = path.join(tmp, 'client-driver.mjs');

let suite: ConformanceSuite;
let skillServer: ConformanceSkillServer;
const listed = { server: [] as string[], client: [] as string[] };
const results = { server: new Map() as SuiteResults, client: new Map() as SuiteResults };

function table(mode: string, rows: ScenarioRow[]): string {
  return rows
    .map(
      (r) =>
        `${mode} ${r.scenario}: ${r.verdict} (${r.passed} passed, ${r.failed} failed)${r.reason ? ` - ${r.reason}` : ''}`,
    )
    .join('\n');
}

beforeAll(async () => {
  const found = installedSuite(ROOT);
  if (!found)
    throw new Error('The conformance suite is not installed: run `npx tsx bin/test-prereqs.ts` (npm test does)');
  suite = found;
  [skillServer, listed.server, listed.client] = await Promise.all([
    startConformanceSkillServer(),
    listScenarios(suite, 'server'),
    listScenarios(suite, 'client'),
    build({
      entryPoints: [path.join(import.meta.dirname, 'client-driver.ts')],
      outfile: driver,
      bundle: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'error',
      // Bundled CommonJS dependencies still call require.
      banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    }),
  ]);
  // The suite sends malformed requests on purpose; the handler's log of each refusal is noise here.
  const quiet = vi.spyOn(console, 'warn').mockImplementation(() => {});
  try {
    const args = ['server', '--url', skillServer.url, '--suite', 'all'];
    results.server = await runSuite(suite, args, path.join(tmp, 'server'));
  } finally {
    quiet.mockRestore();
  }
  // One run of every client scenario, all at once (one suite process: a run per scenario costs six times the CPU).
  // On a busy machine a scenario may wait long for its turn: hence the generous time limits (the driver's too).
  const command = `${process.execPath} ${driver}`;
  const args = ['client', '--suite', 'all', '--timeout', '180000', '--command', command];
  results.client = await runSuite(suite, args, path.join(tmp, 'client'));
}, 400_000);

let failed = false;
afterEach((context) => {
  if (context.task.result?.state === 'fail') failed = true;
});

afterAll(async () => {
  await skillServer?.close();
  // Kept after a failure: each scenario's checks.json, and a client scenario's driver stdout and stderr.
  if (failed) console.log(`conformance results kept in ${tmp}`);
  else fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
});

describe('the official MCP conformance suite', () => {
  it('passes every applicable server scenario against POST /mcp', () => {
    const { rows, problems } = judge(listed.server, results.server, server);
    console.log(table('server', rows));
    expect(listed.server.length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it("passes every applicable client scenario with skillchat's MCP client", () => {
    const { rows, problems } = judge(listed.client, results.client, client);
    console.log(table('client', rows));
    expect(listed.client.length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });
});
