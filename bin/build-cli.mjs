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
import { createRequire } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';

const binDir = import.meta.dirname;
const outdir = path.join(binDir, 'dist');
const started = performance.now();

/**
 * `yaml` (130 kB minified, ~40 ms of a `validate` call to compile) is needed only for frontmatter the fast path
 * (server/skills/frontmatter-fast.ts) cannot read, and the parser is synchronous, so a dynamic import() cannot defer
 * it. In the bundle, `import ... from 'yaml'` gets a stand-in whose exports load bin/dist/yaml.cjs (yaml bundled
 * on its own) with require() on first use. The stand-in exports every name yaml exports (listed from the package
 * at build time), so an import of a name yaml lacks still fails the build.
 */
const require = createRequire(import.meta.url);
const YAML_NAMES = Object.keys(require('yaml')).filter((name) => /^[A-Za-z_$][\w$]*$/.test(name));
const lazyYaml = {
  name: 'lazy-yaml',
  setup(b) {
    b.onResolve({ filter: /^yaml$/ }, (args) =>
      args.namespace === 'lazy-yaml' ? undefined : { path: 'yaml', namespace: 'lazy-yaml' },
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-yaml' }, () => ({
      loader: 'js',
      contents: [
        "import { createRequire } from 'node:module';",
        'let yaml;',
        "const load = () => (yaml ??= createRequire(import.meta.url)('./yaml.cjs'));",
        // A function target, so the stand-in can be called, constructed (`new LineCounter()`) and read
        // (`Scalar.PLAIN`); `instanceof` reads `prototype` through the get trap, so it works too.
        'const lazy = (name) => new Proxy(function () {}, {',
        '  apply: (_t, self, args) => Reflect.apply(load()[name], self, args),',
        '  construct: (_t, args) => Reflect.construct(load()[name], args),',
        '  get: (_t, key) => load()[name][key],',
        '});',
        ...YAML_NAMES.map((name) => `export const ${name} = lazy(${JSON.stringify(name)});`),
      ].join('\n'),
    }));
  },
};

fs.rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { yaml: require.resolve('yaml') },
  outdir,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outExtension: { '.js': '.cjs' },
  minify: process.env.SKILLS_CLI_MINIFY !== '0',
  legalComments: 'none',
  logLevel: 'warning',
});
await build({
  plugins: [lazyYaml],
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
  minify: process.env.SKILLS_CLI_MINIFY !== '0', // 0: readable bundle, for profiling
  // Not loaded at run time (that would cost start-up); `node --enable-source-maps bin/dist/skills.mjs` uses them.
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
});
fs.writeFileSync(path.join(outdir, 'package.json'), '{ "type": "module" }\n');
process.stdout.write(`skills: CLI bundled into bin/dist/ in ${Math.round(performance.now() - started)} ms\n`);
