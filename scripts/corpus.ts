/**
 * The refactoring corpus: every run of test/corpus/runs.json through the built CLI with `--json`,
 * recorded as {args, code, stdout} so a restructuring can be checked to keep every number.
 *
 *   tsx scripts/corpus.ts record test/corpus/expected.json   # before the change
 *   tsx scripts/corpus.ts compare test/corpus/expected.json  # after: lists every run that differs
 *   tsx scripts/corpus.ts extend test/corpus/expected.json   # records only the runs added to runs.json since
 *
 * Release draws are random by design (the CSPRNG); their `values` (and `drawNote`, which depends on them) are dropped before comparing,
 * everything else (scale, guarantee, explanation) must match byte for byte.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { UCI_DIR } from '../test/uci.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SPECS = fileURLToPath(new URL('../test/corpus/specs', import.meta.url));
const RUNS: string[][] = JSON.parse(readFileSync(new URL('../test/corpus/runs.json', import.meta.url), 'utf8'));

interface Outcome {
  args: string[];
  code: number | null;
  stdout: unknown;
  stderr: string;
}

/** Random draws and anything that names this machine's paths are not part of the comparison. */
function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value === null || typeof value !== 'object') return typeof value === 'string' ? value.replaceAll(UCI_DIR, '{UCI}').replaceAll(SPECS, '{SPECS}') : value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (k !== 'values' && k !== 'intervals' && k !== 'drawNote' && !isDrawList(k, v)) out[k] = stable(v);
  return out;
}

/** A release's draws with their error bars (`releases: [{value, interval}]`): random, like `values`. */
const isDrawList = (k: string, v: unknown) => k === 'releases' && Array.isArray(v) && v.every((x) => typeof x === 'object' && x !== null && 'interval' in x);

function run(args: string[]): Outcome {
  const argv = args.map((a) => a.replaceAll('{UCI}', UCI_DIR).replaceAll('{SPECS}', SPECS));
  const json = argv[0] === 'scenarios' ? [] : ['--json'];
  const r = spawnSync(process.execPath, ['dist/cli/main.js', ...argv, ...json], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, PUFFERFISH_HELPERS_WORTH_MS: '0' },
  });
  let stdout: unknown = r.stdout;
  try {
    stdout = JSON.parse(r.stdout);
  } catch {
    // not JSON (an error line, or a text listing): compared as text
  }
  return { args, code: r.status, stdout: stable(stdout), stderr: stable(r.stderr) as string };
}

/** The paths of the values that differ (a key only one side has counts as a difference). */
function differences(a: unknown, b: unknown, path = '$'): string[] {
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return [`${path}: ${JSON.stringify(a)} → ${JSON.stringify(b)}`];
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.flatMap((k) => {
    const [x, y] = [(a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]];
    return JSON.stringify(x) !== JSON.stringify(y) ? differences(x, y, `${path}.${k}`) : [];
  });
}

const [mode, file] = process.argv.slice(2);
if (!file || (mode !== 'record' && mode !== 'compare' && mode !== 'extend')) {
  console.error('usage: tsx scripts/corpus.ts record|compare|extend FILE');
  process.exit(2);
}
// `extend`: the recorded runs stay as they are; only the runs listed after them are run and appended.
const kept: Outcome[] = mode === 'extend' ? JSON.parse(readFileSync(file, 'utf8')) : [];
const outcomes = RUNS.slice(kept.length).map((args, i) => {
  process.stderr.write(`${kept.length + i + 1}/${RUNS.length} ${args.join(' ')}\n`);
  return run(args);
});
if (mode === 'extend') {
  writeFileSync(file, `${JSON.stringify([...kept, ...outcomes], null, 1)}\n`);
} else if (mode === 'record') {
  writeFileSync(file, `${JSON.stringify(outcomes, null, 1)}\n`);
} else {
  const expected: Outcome[] = JSON.parse(readFileSync(file, 'utf8'));
  let differ = 0;
  for (const [i, got] of outcomes.entries()) {
    const want = expected.find((e) => JSON.stringify(e.args) === JSON.stringify(got.args));
    if (!want) console.log(`new run (not in ${file}): ${got.args.join(' ')}`);
    else if (JSON.stringify(want) !== JSON.stringify(got)) {
      differ++;
      const found = differences(want, got);
      // Equal values in another key order: JSON readers see the same output.
      const all = found.length ? found : ['the same keys and values, in another key order'];
      console.log(
        `DIFFERS #${i + 1}: ${got.args.join(' ')}\n${all
          .slice(0, 12)
          .map((d) => `  at ${d}`)
          .join('\n')}${all.length > 12 ? `\n  … ${all.length - 12} more` : ''}`,
      );
    }
  }
  console.log(`${outcomes.length} runs, ${differ} differ`);
  process.exitCode = differ ? 1 : 0;
}
