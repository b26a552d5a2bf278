import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { egressAssetsDir, installEgressAssets } from './egress-assets';

const APP = path.join(import.meta.dirname, '..', '..');
let runtime: string;

beforeEach(() => {
  runtime = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-egress-assets-'));
});
afterEach(() => fs.rmSync(runtime, { recursive: true, force: true }));

const source = (name: string) => fs.readFileSync(path.join(APP, 'server', 'toolchain', name));
const installed = (name: string) => path.join(egressAssetsDir(runtime), name);

it('puts the forwarder and the preload into <runtime>/egress/, readable by every sandbox uid', async () => {
  expect(await installEgressAssets(runtime, APP)).toEqual({ ok: true, dir: egressAssetsDir(runtime) });
  expect(fs.readFileSync(installed('forward.py')).equals(source('egress-forward.py'))).toBe(true);
  expect(fs.readFileSync(installed('node-preload.cjs')).equals(source('egress-node-preload.cjs'))).toBe(true);
  expect(fs.statSync(installed('forward.py')).mode & 0o777).toBe(0o644);
  expect(fs.statSync(egressAssetsDir(runtime)).mode & 0o777).toBe(0o755);
});

it('replaces a copy that differs from the app (a runtime installed before an update) and keeps an equal one', async () => {
  await installEgressAssets(runtime, APP);
  fs.writeFileSync(installed('forward.py'), 'old');
  const preload = fs.statSync(installed('node-preload.cjs')).ino;
  await installEgressAssets(runtime, APP);
  expect(fs.readFileSync(installed('forward.py')).equals(source('egress-forward.py'))).toBe(true);
  expect(fs.statSync(installed('node-preload.cjs')).ino).toBe(preload);
});

it('says what is wrong, without a host path, when the sources are missing', async () => {
  const result = await installEgressAssets(runtime, path.join(runtime, 'no-app'));
  expect(result).toEqual({
    ok: false,
    reason:
      'the egress files could not be put into the runtime folder (a source file is missing from server/toolchain)',
  });
});
