#!/usr/bin/env node
/**
 * Bundles the `skills` CLI (bin/skills.ts and the server/ modules it uses) into bin/dist/ with esbuild, so
 * `bin/skills` starts with plain `node` instead of compiling TypeScript through tsx at every call. Runs at `npm install` (postinstall) and as `npm run build:cli`; plain JavaScript so it needs
 * nothing but esbuild.
 *
 * What a call costs before it does any work is most of what `skills validate` costs (starting a bare `node -e 0` is
 * most of the 150 ms target here), so the layout is chosen for start-up:
 * - CommonJS, not ES modules: Node 20's ES module loader takes longer to start the same code.
 * - One file per command module: bin/dist/skills.cjs is the dispatcher (bin/skills.ts: usage, `--version`, exit
 *   codes) and each `import('./cli/X')` in it becomes `require('./X.cjs')`, a bundle of that module and what it
 *   uses. esbuild cannot split CommonJS output into shared chunks, so shared code (bin/cli/command.ts, the skill
 *   parser) is copied into each file; a call loads the dispatcher and one command file, and one big file would
 *   make every call parse every command.
 * - Heavy libraries used on one path only (`yaml` for frontmatter the fast path cannot read, the 2.7 MB o200k token
 *   table for `list`) are files of their own, loaded on first use through a stand-in (`lazyLibrary` below).
 *
 * The files must sit two levels below the project folder (bin/dist/): `PROJECT_DIR` in bin/cli/command.ts is
 * computed from the running file's folder.
 *
 * Last, the sha256 of the bundled files goes into bin/dist/code-version: the version the CLI's caches are written
 * with (bin/cli/cache/code-version.ts). esbuild's output is a function of the sources, the libraries and the options
 * above, so a rebuild of the same code keeps the caches and any other change drops them.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';

const binDir = import.meta.dirname;
const outdir = path.join(binDir, 'dist');
const started = performance.now();
const require = createRequire(import.meta.url);
const minify = process.env.SKILLS_CLI_MINIFY !== '0'; // 0: readable bundle, for profiling

/** Libraries bundled on their own and loaded on first use: package specifier -> file in bin/dist/. */
const LAZY = {
  yaml: 'yaml.cjs',
  'gpt-tokenizer/encoding/o200k_base': 'o200k.cjs',
  // The confusables table (115 kB): only a scan that parses skills needs it, not a kept answer.
  unhomoglyph: 'unhomoglyph.cjs',
};

/**
 * `yaml` (130 kB minified, a good part of a `validate` call to compile), the token table and the confusables are
 * synchronous libraries, so a dynamic import() cannot defer them. In the bundle, `import ... from 'yaml'` gets a
 * stand-in whose exports require() the library's own file on first use. The stand-in exports every name the library
 * exports (listed from the package at build time), so an import of a name it lacks still fails the build; a library
 * that is one function (unhomoglyph) is its default export.
 */
const lazyLibrary = {
  name: 'lazy-library',
  setup(b) {
    const filter = new RegExp(
      `^(${Object.keys(LAZY)
        .map((s) => s.replace(/[/.]/g, '\\$&'))
        .join('|')})$`,
    );
    b.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'lazy-library' }));
    b.onLoad({ filter: /.*/, namespace: 'lazy-library' }, (args) => {
      const library = require(args.path);
      const names = Object.keys(library).filter((n) => n !== 'default' && /^[A-Za-z_$][\w$]*$/.test(n));
      return {
        loader: 'js',
        contents: [
          'let library;',
          `const load = () => (library ??= require(__dirname + '/${LAZY[args.path]}'));`,
          // A function target, so the stand-in can be called, constructed (`new LineCounter()`) and read
          // (`Scalar.PLAIN`); `instanceof` reads `prototype` through the get trap, so it works too.
          'const lazy = (name) => new Proxy(function () {}, {',
          '  apply: (_t, self, args) => Reflect.apply(name === undefined ? load() : load()[name], self, args),',
          '  construct: (_t, args) => Reflect.construct(name === undefined ? load() : load()[name], args),',
          '  get: (_t, key) => (name === undefined ? load() : load()[name])[key],',
          '});',
          ...(typeof library === 'function' ? ['export default lazy(undefined);'] : []),
          ...names.map((name) => `export const ${name} = lazy(${JSON.stringify(name)});`),
        ].join('\n'),
      };
    });
  },
};

/**
 * The o200k ranks (200,000 strings) go beside the token table's bundle as JSON, not into it as a JavaScript array:
 * JSON.parse reads them in about two thirds of the time V8 takes to compile and run the array, and a cold `list`
 * loads the table to count its catalog's tokens.
 */
const RANKS = 'o200k-ranks.json';
const jsonRanks = {
  name: 'json-ranks',
  setup(b) {
    b.onLoad({ filter: /[\\/]bpeRanks[\\/]o200k_base\.js$/ }, (args) => {
      fs.mkdirSync(outdir, { recursive: true });
      fs.writeFileSync(path.join(outdir, RANKS), JSON.stringify(require(args.path).default));
      return {
        loader: 'js',
        contents: `exports.default = JSON.parse(require('node:fs').readFileSync(__dirname + '/${RANKS}', 'utf8'));`,
      };
    });
  },
};

/** The dispatcher's `import('./cli/X')`s: left as `require('./X.cjs')`, and each X recorded to be bundled next. */
const commandModules = new Set();
const commandFiles = {
  name: 'command-files',
  setup(b) {
    b.onResolve({ filter: /^\.\/cli\/[\w-]+$/ }, (args) => {
      if (args.kind !== 'dynamic-import' || args.importer !== path.join(binDir, 'skills.ts')) return undefined;
      const name = path.basename(args.path);
      commandModules.add(name);
      return { path: `./${name}.cjs`, external: true };
    });
  },
};

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outExtension: { '.js': '.cjs' },
  // esbuild keeps `import()` in CommonJS output, which would load the command files through the ES module loader
  // again; unsupported, it becomes `Promise.resolve().then(() => require(...))`.
  supported: { 'dynamic-import': false },
  outdir,
  minify,
  // Native addon: never bundled (`list` opens the app's SQLite file read-only through it, when it exists).
  external: ['better-sqlite3'],
  tsconfig: path.join(binDir, '..', 'tsconfig.json'),
  // The sources are ES modules: in CommonJS `import.meta` is the file's own __dirname and URL.
  define: { 'import.meta.dirname': '__dirname', 'import.meta.url': '__skillsFileUrl' },
  banner: { js: 'var __skillsFileUrl = require("node:url").pathToFileURL(__filename).href;' },
  // Not loaded at run time (that would cost start-up); `node --enable-source-maps bin/dist/skills.cjs` uses them.
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
};

fs.rmSync(outdir, { recursive: true, force: true });
for (const [specifier, file] of Object.entries(LAZY)) {
  await build({
    ...common,
    entryPoints: [require.resolve(specifier)],
    plugins: [jsonRanks],
    outdir: undefined,
    outfile: path.join(outdir, file),
    sourcemap: false,
    define: undefined,
    banner: undefined,
  });
}
await build({ ...common, plugins: [commandFiles], entryPoints: { skills: path.join(binDir, 'skills.ts') } });
await build({
  ...common,
  plugins: [lazyLibrary],
  entryPoints: Object.fromEntries([...commandModules].map((name) => [name, path.join(binDir, 'cli', `${name}.ts`)])),
});
const bundled = fs
  .readdirSync(outdir)
  .filter((name) => name.endsWith('.cjs') || name === RANKS)
  .sort();
const version = createHash('sha256');
for (const name of bundled) version.update(`${name}\0`).update(fs.readFileSync(path.join(outdir, name)));
fs.writeFileSync(path.join(outdir, 'code-version'), `${version.digest('hex').slice(0, 24)}\n`);
process.stdout.write(`skills: CLI bundled into bin/dist/ in ${Math.round(performance.now() - started)} ms\n`);
