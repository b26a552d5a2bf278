#!/usr/bin/env node
/**
 * Bundles the `skills` CLI (bin/skills.ts and the server/ modules it uses) into bin/dist/ with esbuild, so
 * `bin/skills` starts with plain `node` instead of compiling TypeScript through tsx at every call (~1 s on a
 * slow machine). Runs at `npm install` (postinstall) and as `npm run build:cli`; plain JavaScript so it needs
 * nothing but esbuild.
 *
 * The bundle must sit two levels below the project folder (bin/dist/), as bin/skills.ts does: `PROJECT_DIR` in
 * bin/cli/app.ts is computed from the running file's folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const binDir = import.meta.dirname;
const outdir = path.join(binDir, 'dist');
const started = performance.now();

fs.rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { skills: path.join(binDir, 'skills.ts') },
  outdir,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Each command is imported when it runs (bin/skills.ts) and the o200k token table (3 MB) by `list` only;
  // splitting keeps what one command needs out of the others' start-up.
  splitting: true,
  outExtension: { '.js': '.mjs' },
  // Chunks sit beside the entry, not in a subfolder: `PROJECT_DIR` (bin/cli/command.ts) is two levels up from
  // whichever file it lands in.
  chunkNames: '[name]-[hash]',
  // Native addon: never bundled (the CLI does not load it today; this keeps it that way if an import slips in).
  external: ['better-sqlite3'],
  tsconfig: path.join(binDir, '..', 'tsconfig.json'),
  // Bundled CommonJS dependencies call `require`, which an ES module does not have.
  banner: {
    js: "import { createRequire as __skillsRequire } from 'node:module'; const require = __skillsRequire(import.meta.url);",
  },
  // Minified, the bundle is about half the size, and compiling it is a third of a `validate` call's CPU time.
  minify: true,
  // Not loaded at run time (that would cost start-up); `node --enable-source-maps bin/dist/skills.mjs` uses them.
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
});
fs.writeFileSync(path.join(outdir, 'package.json'), '{ "type": "module" }\n');
process.stdout.write(`skills: CLI bundled into bin/dist/ in ${Math.round(performance.now() - started)} ms\n`);
