// The window-count and table-statistic cases of `npm run bench`, also alone: `npx tsx
// bench/newSources.ts`. Whole CLI processes (needs `npm run build`), each timed once against a
// reference run in the same process.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

type Row = { group: string; case: string; reference: string; meanMs: number; referenceMs: number; ratio: number; note?: string };
const root = fileURLToPath(new URL('..', import.meta.url));

/** One whole process, timed; its stdout parsed as JSON when asked. */
function run(args: string[]): { ms: number; out: string } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 24 });
  const ms = performance.now() - t0;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  return { ms, out: r.stdout };
}
const cli = (...args: string[]) => run(['dist/cli/main.js', ...args]);

const SEATTLE = [
  '--data',
  'test/fixtures/weather/seattle-weather.csv.gz',
  '--sequence',
  'weather',
  '--order-by',
  'date',
  '--query',
  'count:rain',
  '--length',
  '365',
];
const MONTHS_2015 = '31,28,31,30,31,30,31,31,30,31,30,31';

/** Seattle's 12 monthly rain counts at α = 2 (path-coupled, and `best`) against the yearly count's exact calibration at α = ∞. */
function windows(): Row[] {
  const path = cli('calibrate', ...SEATTLE, '--window', MONTHS_2015, '--method', 'path-coupled', '--alpha', '2', '--threads', '1', '--json');
  const year = cli('calibrate', ...SEATTLE, '--alpha', 'inf', '--method', 'exact', '--threads', '1', '--json');
  const mqm = cli('calibrate', ...SEATTLE, '--window', MONTHS_2015, '--method', 'mqm-exact', '--alpha', '2', '--json');
  const best = cli('calibrate', ...SEATTLE, '--window', MONTHS_2015, '--alpha', '2', '--threads', '1', '--json');
  const scale = (o: string) => Number(JSON.parse(o).results[0].scale);
  const b = scale(path.out);
  return [
    {
      group: 'window counts',
      case: "Seattle, 12 months' rain counts, path-coupled, α = 2, ε = 1 (whole process)",
      reference: 'exact calibration of the yearly count at α = ∞ (whole process)',
      meanMs: path.ms,
      referenceMs: year.ms,
      ratio: path.ms / year.ms,
      note: `b = ${b.toPrecision(5)} per month; mqm-exact ${scale(mqm.out).toPrecision(5)} (${(scale(mqm.out) / b).toFixed(2)}×); the yearly count at α = ∞ ${scale(year.out).toPrecision(5)}`,
    },
    {
      group: 'window counts',
      case: "Seattle, 12 months' rain counts, best (the default: boundary-coupled wins), α = 2, ε = 1 (whole process)",
      reference: 'exact calibration of the yearly count at α = ∞ (whole process)',
      meanMs: best.ms,
      referenceMs: year.ms,
      ratio: best.ms / year.ms,
      note: `b = ${scale(best.out).toPrecision(5)} per month (${(scale(best.out) / b).toFixed(2)} of path-coupled's); best runs boundary-coupled, path-coupled, the MQM and group DP`,
    },
  ];
}

/**
 * The default a curator meets on a year of daily data: the yearly count's exact calibration at α = 2
 * against the same at α = ∞ (one thread each; the speed issue's first criterion is ≤ 1.5×).
 */
function yearAtTwo(): Row[] {
  const two = cli('calibrate', ...SEATTLE, '--alpha', '2', '--method', 'exact', '--threads', '1', '--json');
  const inf = cli('calibrate', ...SEATTLE, '--alpha', 'inf', '--method', 'exact', '--threads', '1', '--json');
  const best = cli('calibrate', ...SEATTLE, '--alpha', '2', '--threads', '1', '--json');
  const gauss = cli('calibrate', ...SEATTLE, '--alpha', '2', '--method', 'exact', '--mechanism', 'gaussian', '--threads', '1', '--json');
  const scale = (o: string) => Number(JSON.parse(o).results[0].scale);
  return [
    {
      group: 'window counts',
      case: 'Seattle, the yearly count of rain, best (the default) at α = 2 (whole process, one thread)',
      reference: 'exact at α = ∞ (whole process, one thread)',
      meanMs: best.ms,
      referenceMs: inf.ms,
      ratio: best.ms / inf.ms,
      note: `b = ${scale(best.out).toPrecision(6)}: every method of the laws and the chain's, the α = ∞ run skipped where it needs more noise`,
    },
    {
      group: 'window counts',
      case: 'Seattle, the yearly count of rain, exact at α = 2 (3 650 pairs, whole process, one thread)',
      reference: 'the same at α = ∞ (whole process, one thread)',
      meanMs: two.ms,
      referenceMs: inf.ms,
      ratio: two.ms / inf.ms,
      note: `b = ${scale(two.out).toPrecision(6)} at α = 2, ${scale(inf.out).toPrecision(6)} at α = ∞; the largest pair searched, the others checked there`,
    },
    {
      group: 'window counts',
      case: 'Seattle, the yearly count of rain, Gaussian exact at α = 2 (whole process, one thread)',
      reference: 'Laplace exact at α = 2 (whole process, one thread; the speed issue asks ≤ 2×)',
      meanMs: gauss.ms,
      referenceMs: two.ms,
      ratio: gauss.ms / two.ms,
      note: `σ = ${scale(gauss.out).toPrecision(6)}: the grid rule with quiet gaps (docs/math.md §8)`,
    },
  ];
}

/** A truncated release of the yearly count (to [0, T]) against the untruncated release (the speed issue: ≤ 2×), Laplace and Gaussian. */
function truncated(): Row[] {
  const scale = (o: string) => Number(JSON.parse(o).scale);
  return ['laplace', 'gaussian'].map((mechanism) => {
    const value = ['--value', '150', '--alpha', '2', '--mechanism', mechanism, '--json'];
    const cut = cli('release', ...SEATTLE, ...value, '--truncate', '0,365');
    const whole = cli('release', ...SEATTLE, ...value);
    return {
      group: 'window counts',
      case: `Seattle, the yearly count of rain released truncated to [0, 365], ${mechanism}, α = 2 (whole process)`,
      reference: 'the untruncated release (whole process)',
      meanMs: cut.ms,
      referenceMs: whole.ms,
      ratio: cut.ms / whole.ms,
      note: `scale ${scale(cut.out).toPrecision(6)} truncated, ${scale(whole.out).toPrecision(6)} untruncated`,
    };
  });
}

/** A mean over a 10⁷-row CSV (two aggregates in DuckDB, then the calibration) against a plain SELECT avg of the same file. */
function statistic(rows = 10_000_000): Row[] {
  const dir = mkdtempSync(join(tmpdir(), 'pufferfish-bench-'));
  const file = join(dir, 'big.csv');
  try {
    // Benchmark data, written by DuckDB itself (its random() is not a release path).
    const make = `const { DuckDBInstance } = await import('@duckdb/node-api'); const c = await (await DuckDBInstance.create(':memory:')).connect(); await c.run("COPY (SELECT (100 + floor(random() * 300))::INT AS chol, (random() < 0.15)::INT AS fbs FROM range(${rows})) TO '${file}' (HEADER)");`;
    run(['--input-type=module', '-e', make]);
    const avg = `const { DuckDBInstance } = await import('@duckdb/node-api'); const c = await (await DuckDBInstance.create(':memory:')).connect(); const r = await c.runAndReadAll("SELECT avg(chol) FROM read_csv('${file}')"); console.log(r.getRows()[0][0]);`;
    const plain = run(['--input-type=module', '-e', avg]);
    const ours = cli('calibrate', '--data', file, '--query', 'mean:chol', '--secret-column', 'fbs', '--method', 'theorem', '--json');
    return [
      {
        group: 'statistics',
        case: `mean of a column over a ${rows.toExponential(0)}-row CSV, calibrated (whole process)`,
        reference: 'SELECT avg(col) of the same file in DuckDB (whole process)',
        meanMs: ours.ms,
        referenceMs: plain.ms,
        ratio: ours.ms / plain.ms,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The rows of both. */
export function newSourceRows(): Row[] {
  return [...windows(), ...yearAtTwo(), ...truncated(), ...statistic()];
}

if (import.meta.url === pathToFileURL(process.argv[1]).href)
  for (const r of newSourceRows())
    console.log(
      `${r.case}: ${(r.meanMs / 1000).toFixed(2)} s; ${r.reference}: ${(r.referenceMs / 1000).toFixed(2)} s; ratio ${r.ratio.toFixed(2)}${r.note ? `; ${r.note}` : ''}`,
    );
