/**
 * The package as a user gets it, checked without the network (CI runs it after `npm test`):
 *
 *  1. `npm pack` (of the built dist) passes publint and @arethetypeswrong/cli (ESM-only profile:
 *     the package is `"type": "module"` for Node ≥ 20.19);
 *  2. the tarball installs into an empty project with `npm ci --offline` — the dependencies come
 *     from npm's cache, which the repository's own `npm ci` filled, through a lockfile built from
 *     the repository's (same versions, same integrity hashes);
 *  3. there, `pufferfish` imports in Node, `pufferfish/node` calibrates a table, and the core
 *     entry bundles for a browser (esbuild, platform browser: any `node:` import fails the build);
 *  4. the TypeDoc reference of both entries builds with no warning (typedoc.json: every export
 *     documented; the examples themselves run in test/apiExamples.test.ts).
 *
 *   tsx scripts/package-check.ts
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'pufferfish-package-'));
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);
const step = (what: string) => process.stdout.write(`package-check: ${what}\n`);
const run = (cmd: string, args: string[], cwd = ROOT) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });

step('npm pack');
const packed = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work]))[0] as { filename: string; files: { path: string }[] };
const tgz = join(work, packed.filename);
for (const f of ['dist/index.js', 'dist/index.d.ts', 'dist/node.js', 'dist/node.d.ts', 'dist/cli/main.js', 'docs/math.md', 'LICENSE'])
  if (!packed.files.some((x) => x.path === f)) throw new Error(`the package lacks ${f}`);
if (packed.files.some((x) => /^(test|src|scripts)\//.test(x.path))) throw new Error('the package ships sources or tests');

step('publint');
process.stdout.write(run(bin('publint'), ['run', tgz, '--strict']));
step('@arethetypeswrong/cli');
process.stdout.write(run(bin('attw'), [tgz, '--profile', 'esm-only', '--format', 'table-flipped']));

step('install the tarball into an empty project, offline');
const consumer = join(work, 'consumer');
mkdirSync(consumer);
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { dev?: boolean; version?: string; dependencies?: Record<string, string> } & Record<string, unknown>>;
};
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; dependencies: Record<string, string> };
copyFileSync(tgz, join(consumer, 'pufferfish.tgz'));
const integrity = `sha512-${createHash('sha512').update(readFileSync(tgz)).digest('base64')}`;
const packages: Record<string, unknown> = {
  '': { name: 'consumer', version: '1.0.0', dependencies: { pufferfish: 'file:pufferfish.tgz' } },
  'node_modules/pufferfish': {
    version: manifest.version,
    resolved: 'file:pufferfish.tgz',
    integrity,
    license: 'MIT',
    dependencies: manifest.dependencies,
    bin: { pufferfish: 'dist/cli/main.js' },
    engines: { node: '>=20.19' },
  },
};
// The runtime dependency tree exactly as the repository resolved it (dev-only packages left out).
for (const [path, entry] of Object.entries(lock.packages)) if (path.startsWith('node_modules/') && !entry.dev) packages[path] = entry;
writeFileSync(
  join(consumer, 'package.json'),
  JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module', dependencies: { pufferfish: 'file:pufferfish.tgz' } }, null, 2),
);
writeFileSync(
  join(consumer, 'package-lock.json'),
  JSON.stringify({ name: 'consumer', version: '1.0.0', lockfileVersion: 3, requires: true, packages }, null, 2),
);
run('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--loglevel', 'error'], consumer);

step('import in Node; calibrate a table through pufferfish/node');
copyFileSync(join(ROOT, 'examples', 'heart.csv'), join(consumer, 'heart.csv'));
writeFileSync(
  join(consumer, 'use.mjs'),
  `import { calibrate, builtinScenario } from 'pufferfish';
import { scenarioFromTable } from 'pufferfish/node';
const heart = await scenarioFromTable('heart.csv', { query: 'oldpeak', secretColumn: 'fbs' });
const settings = { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 };
const fromTable = calibrate(heart, settings).scale, builtin = calibrate(builtinScenario('heart'), settings).scale;
if (!(fromTable > 0) || fromTable !== builtin) throw new Error('table ' + fromTable + ' vs built-in ' + builtin);
console.log('calibrated b =', fromTable);
`,
);
process.stdout.write(run(process.execPath, ['use.mjs'], consumer));
process.stdout.write(
  run(join(consumer, 'node_modules', '.bin', 'pufferfish'), ['calibrate', '--scenario', 'heart', '--method', 'theorem'], consumer)
    .split('\n')
    .slice(0, 4)
    .join('\n'),
);

step('bundle the core entry for a browser');
writeFileSync(
  join(consumer, 'browser.mjs'),
  `import { calibrate, builtinScenario } from 'pufferfish';\nconsole.log(calibrate(builtinScenario('heart'), { mechanism: 'laplace', method: 'exact', alpha: 2, epsilon: 1 }).scale);\n`,
);
run(bin('esbuild'), ['browser.mjs', '--bundle', '--platform=browser', '--format=esm', '--outfile=bundle.js', '--log-level=error'], consumer);
const bundle = readFileSync(join(consumer, 'bundle.js'), 'utf8');
if (/from ["']node:|require\(["']node:/.test(bundle)) throw new Error('the browser bundle imports a node: module');
process.stdout.write(`\nbundle: ${(bundle.length / 1024).toFixed(0)} KiB, no node: modules\n`);

step('TypeDoc reference of both entries, no warnings');
run(bin('typedoc'), ['--out', join(work, 'api')]);
step(`all checks passed (${work})`);
