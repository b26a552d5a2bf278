/**
 * What a run with egress needs from the runtime folder (server/sandbox/bwrap-egress.ts): the in-sandbox forwarder
 * (`egress-forward.py`) and Node's proxy preload (`egress-node-preload.cjs`), copied from this folder into
 * `<runtime>/egress/` by `runtime install` and again, when they differ, at a process's first run with egress. They
 * live in the runtime, not bound from the app folder, because the preload loads the runtime's own undici (beside
 * it) and a backend whose sandboxes run elsewhere gets the runtime there, not the app. Like the seccomp generator,
 * the sources are read from the app folder at run time: the Next build bundles neither.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The files of `<runtime>/egress/`, by their name there, and their source under server/toolchain/. */
const ASSETS = { 'forward.py': 'egress-forward.py', 'node-preload.cjs': 'egress-node-preload.cjs' } as const;

export type EgressAsset = keyof typeof ASSETS;

export function egressAssetsDir(runtimeDir: string): string {
  return path.join(/*turbopackIgnore: true*/ runtimeDir, 'egress');
}

function sourceOf(asset: EgressAsset, appDir: string): string {
  return path.join(/*turbopackIgnore: true*/ appDir, 'server', 'toolchain', ASSETS[asset]);
}

export type EgressAssets = { ok: true; dir: string } | { ok: false; reason: string };

/**
 * Copies the assets into `<runtimeDir>/egress/` where missing or different (readable by every sandbox uid). Each is
 * written to a file of its own and renamed into place, so a run starting meanwhile never reads half of one.
 */
export async function installEgressAssets(
  runtimeDir: string,
  appDir: string = process.env.SKILLCHAT_APP_DIR ?? process.cwd(),
): Promise<EgressAssets> {
  const dir = egressAssetsDir(runtimeDir);
  try {
    await fs.promises.mkdir(/*turbopackIgnore: true*/ dir, { recursive: true, mode: 0o755 });
    for (const asset of Object.keys(ASSETS) as EgressAsset[]) {
      const source = await fs.promises.readFile(/*turbopackIgnore: true*/ sourceOf(asset, appDir));
      const target = path.join(/*turbopackIgnore: true*/ dir, asset);
      const current = await fs.promises.readFile(/*turbopackIgnore: true*/ target).catch(() => null);
      if (current?.equals(source)) continue;
      const tmp = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      await fs.promises.writeFile(/*turbopackIgnore: true*/ tmp, source, { mode: 0o644 });
      await fs.promises.chmod(/*turbopackIgnore: true*/ tmp, 0o644);
      await fs.promises.rename(/*turbopackIgnore: true*/ tmp, target);
    }
    // Current files in a folder the server cannot write (a runtime installed by root) are fine as they are.
    const mode = (await fs.promises.stat(/*turbopackIgnore: true*/ dir)).mode & 0o777;
    if (mode !== 0o755) await fs.promises.chmod(/*turbopackIgnore: true*/ dir, 0o755);
    return { ok: true, dir };
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    const why = e.code === 'ENOENT' ? 'a source file is missing from server/toolchain' : (e.code ?? e.message);
    return { ok: false, reason: `the egress files could not be put into the runtime folder (${why})` };
  }
}
