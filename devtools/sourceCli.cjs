// The `countersign` CLI in a source checkout: the TypeScript of cli/ and everything it imports from the project,
// bundled once by esbuild (packages stay in node_modules) into .cli-cache/, and rebuilt when a source it was made
// from changed (content digests, as the workflow bundle cache keeps them). Through tsx alone, every command paid
// about 0.6 s of CPU to compile and load each module; the bundle loads in about 0.2 s. tsx registers itself on the
// first TypeScript file the CLI loads at run time (an agents file, the workflows a gateway's worker bundles): its
// hook on every require cost 0.25 s more when always on. The folder sits at the project's top, one level down like
// cli/, so a module's `__dirname/..` and `require.resolve('../x')` name the same files as from cli/.
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { dirname, join } = require('node:path');

const ROOT = join(__dirname, '..');
const DIR = join(ROOT, '.cli-cache');
const BUNDLE = join(DIR, 'cli.js');
const MANIFEST = join(DIR, 'cli.json');

const digestOf = (path) => {
  try {
    return createHash('sha256')
      .update(readFileSync(join(ROOT, path)))
      .digest('hex');
  } catch {
    return 'missing';
  }
};

/** The manifest's sources (project files, and the lockfile for the packages) are all as they were at the build. */
function fresh() {
  try {
    const { sources } = JSON.parse(readFileSync(MANIFEST, 'utf8'));
    return Object.entries(sources).every(([path, digest]) => digestOf(path) === digest);
  } catch {
    return false;
  }
}

/** Bundles cli/cli.ts; written whole, then renamed, so a CLI starting beside never reads half of one. */
function build() {
  const esbuild = require(require.resolve('esbuild', { paths: [dirname(require.resolve('tsx/package.json'))] }));
  const tmp = join(DIR, `cli.${process.pid}`);
  mkdirSync(DIR, { recursive: true });
  const { metafile } = esbuild.buildSync({
    absWorkingDir: ROOT, // so the metafile names inputs from the project's top
    entryPoints: ['cli/cli.ts'],
    outfile: `${tmp}.js`,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    metafile: true,
    logLevel: 'silent',
  });
  const sources = { 'package-lock.json': digestOf('package-lock.json') };
  for (const input of Object.keys(metafile.inputs)) sources[input] = digestOf(input);
  writeFileSync(`${tmp}.json`, JSON.stringify({ sources }));
  renameSync(`${tmp}.js`, BUNDLE); // the bundle first: a manifest never names a bundle not yet there
  renameSync(`${tmp}.json`, MANIFEST);
}

/** TypeScript extensions resolve and load, but tsx registers only when the first such file is required. */
function tsxOnFirstUse() {
  for (const ext of ['.ts', '.tsx'])
    // tsx's own handlers replace exactly these two
    Module._extensions[ext] = (module, filename) => {
      require('tsx/cjs'); // replaces these handlers (and hooks resolution) from here on
      return Module._extensions[ext](module, filename);
    };
}

/** Runs the CLI; a checkout that cannot be bundled (a syntax error, a read-only folder) runs through tsx as before. */
module.exports.main = function main() {
  let bundled = fresh();
  if (!bundled) {
    try {
      build();
      bundled = true;
    } catch {
      bundled = false;
    }
  }
  if (bundled) {
    tsxOnFirstUse();
    require(BUNDLE).main();
  } else {
    require('tsx/cjs');
    require(join(ROOT, 'cli/cli.ts')).main();
  }
};
