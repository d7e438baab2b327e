// Statistics of a table as law sources (docs/math.md §18): sums, means, counts and shares of one
// unit's contribution, units, public groups, releases computed by the tool, plans by accuracy.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calibrateFor } from '../src/api/guarantee.js';
import { statisticFromTable, toStatistic } from '../src/api/statistic.js';
import { smallestEpsilon } from '../src/api/accuracy.js';
import { audit } from '../src/audit/audit.js';
import type { Discrete } from '../src/distribution/discrete.js';
import { divideDown, divideUp, nextDown } from '../src/numerics/float.js';
import { mechanismDef, noiseOptions } from '../src/mechanisms/registry.js';
import { release } from '../src/release/release.js';
import { parseStatistic } from '../src/sources/statistic.js';
import { uciQuirks } from '../src/uci/formats.js';
import { runInProcess as inProcess } from './inProcess.js';
import { seededSource } from './seeded.js';

const HEART = { kind: 'csv' as const, location: 'test/fixtures/uci/heart-disease/processed.cleveland.data.gz' };
const heart = async (q: string, extra: Record<string, unknown> = {}) =>
  statisticFromTable({ ...HEART, ...uciQuirks(HEART.location) }, { statistic: parseStatistic(q)!, secretColumn: 'fbs', ...extra });
const dir = mkdtempSync(join(tmpdir(), 'pufferfish-stat-'));
const csv = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const lawOf = (d: Discrete) => Array.from(d.values).map((v, i) => [v, Number(d.numerators[i]) / Number(d.denominator)]);

describe('directed division', () => {
  it('divideUp/divideDown bracket x/n exactly and stay within one ulp', () => {
    for (const [x, n] of [
      [1, 3],
      [17.78, 303],
      [1e-300, 7],
      [123456.789, 1461],
    ]) {
      const up = divideUp(x, n);
      const down = divideDown(x, n);
      expect(up).toBeGreaterThanOrEqual(x / n);
      expect(down).toBeLessThanOrEqual(x / n);
      expect(up - down).toBeLessThanOrEqual(2 * Number.EPSILON * Math.abs(x / n) + Number.MIN_VALUE);
      // Exactness: BigInt check of up·n ≥ x on the doubles' exact values.
      expect(BigInt(Math.round(up * 2 ** 60)) * BigInt(n) >= BigInt(Math.round(x * 2 ** 60)) || x < 1e-200).toBe(true);
    }
  });

  it('a --scale named for a contribution scale reaches it through fromScale, and is the smallest that does (short decimals included)', () => {
    for (const [fit, n] of [
      [20, 4],
      [30.5, 2],
      [3, 3],
      [18.265201115064496, 303],
      [0.1, 7],
    ]) {
      const to = toStatistic({ divisor: n });
      const s = to.givenFor(fit);
      expect(to.fromScale(s)).toBeGreaterThanOrEqual(fit);
      expect(to.fromScale(nextDown(s))).toBeLessThan(fit);
    }
  });
});

describe('statistics as law sources', () => {
  it("a mean's scale is the sum's contribution scale divided by n, rounded up, for every method and order", async () => {
    const sum = await heart('sum:chol');
    const mean = await heart('mean:chol');
    const [gs, gm] = [sum.groups[0], mean.groups[0]];
    expect(gm.units).toBe(303);
    expect(gm.divisor).toBe(303);
    expect(gs.divisor).toBe(1);
    // The mean's laws are the sum's: one row's cholesterol per secret.
    for (const s of ['0.0', '1.0'])
      expect(lawOf(gm.scenario.priors[0].conditionals[s] as Discrete)).toEqual(lawOf(gs.scenario.priors[0].conditionals[s] as Discrete));
    for (const method of ['theorem', 'wasserstein-inf', 'coupled', 'exact'] as const)
      for (const alpha of [0.5, 2, 8, Infinity]) {
        if (alpha < 1 && method === 'coupled') continue;
        const noise = { mechanism: 'laplace' as const, method };
        const b = calibrateFor(gs.scenario, { kind: 'renyi', alpha, epsilon: 1 }, noise).scale;
        const m = toStatistic(gm).scale(calibrateFor(gm.scenario, { kind: 'renyi', alpha, epsilon: 1 }, noise).scale);
        expect(m).toBe(divideUp(b, 303));
        expect(m).toBeGreaterThanOrEqual(b / 303);
        expect(m).toBeLessThanOrEqual(b / 303 + 2 * Number.EPSILON * (b / 303));
      }
  });

  it('a statistic whose contribution laws agree under every secret needs no noise, and says why', async () => {
    const t = await heart('count');
    expect(t.uninformative).toBe(true);
    const r = await inProcess('calibrate', '--data', HEART.location, '--query', 'count', '--secret-column', 'fbs');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/the same under every secret: the statistic tells nothing about the secret, so no noise is needed/);
    // A predicate no row meets: every contribution is 0.
    expect((await heart('count:chol > 10000')).uninformative).toBe(true);
  });

  it("a count's exact D_α equals an independent Bernoulli-mixture integral", async () => {
    const t = await heart('count:chol > 240');
    const { scenario } = t.groups[0];
    const p = (s: string) => {
      const d = scenario.priors[0].conditionals[s] as Discrete;
      const i = Array.from(d.values).indexOf(1);
      return Number(d.numerators[i]) / Number(d.denominator);
    };
    const [p0, p1] = [p('0.0'), p('1.0')];
    expect(p0).toBeGreaterThan(0);
    expect(p1).not.toBe(p0);
    for (const [alpha, b] of [
      [2, 0.5],
      [4, 0.2],
      [1.5, 1],
    ]) {
      const lap = (y: number) => Math.exp(-Math.abs(y) / b) / (2 * b);
      const dens = (q: number, y: number) => (1 - q) * lap(y) + q * lap(y - 1);
      // Simpson's rule on each smooth piece (the kinks at 0 and 1 are ends); tails beyond 60b are e^-60 small.
      const f = (u: number) => dens(p0, u) ** alpha * dens(p1, u) ** (1 - alpha);
      const simpson = (lo: number, hi: number, m = 20000) => {
        const h = (hi - lo) / m;
        let acc = f(lo) + f(hi);
        for (let k = 1; k < m; k++) acc += (k % 2 ? 4 : 2) * f(lo + k * h);
        return (acc * h) / 3;
      };
      const sum = simpson(-60 * b, 0) + simpson(0, 1) + simpson(1, 1 + 60 * b);
      const independent = Math.log(sum) / (alpha - 1);
      const rows = audit(scenario, { mechanism: 'laplace', scale: b, alphas: [alpha], epsilon: 1, delta: 1e-6 });
      const row = rows.find((x) => x.direction[0] === '0.0')!;
      expect(Math.abs(row.divergence - independent)).toBeLessThan(1e-9 + row.error);
    }
  });

  it("--unit: a household's rows contribute their total, each member under its own secret", async () => {
    const f = csv('households.csv', 'hh,x,s\n1,10,a\n1,20,b\n2,5,a\n3,7,b\n3,1,b\n4,3,a\n');
    const t = await statisticFromTable(f, { statistic: { kind: 'mean', column: 'x', unit: 'hh' }, secretColumn: 's' });
    const g = t.groups[0];
    expect(g.units).toBe(4);
    expect(g.total).toBe(46);
    expect(lawOf(g.scenario.priors[0].conditionals.a as Discrete)).toEqual([
      [3, 1 / 3],
      [5, 1 / 3],
      [30, 1 / 3],
    ]);
    expect(lawOf(g.scenario.priors[0].conditionals.b as Discrete)).toEqual([
      [8, 2 / 3],
      [30, 1 / 3],
    ]);
    // A sum's missing value counts 0, as SQL's sum reads it, in the value and in the laws (counted);
    // a mean's would make n tell whether a unit has a value: refused.
    const m = csv('missing.csv', 'hh,x,s\n1,10,a\n1,,b\n2,5,a\n3,7,b\n');
    const t2 = await statisticFromTable(m, { statistic: { kind: 'sum', column: 'x', unit: 'hh' }, secretColumn: 's' });
    expect(t2.groups[0].units).toBe(3);
    expect(t2.droppedFromValue).toBe(0);
    expect(t2.zeroed).toBe(1);
    expect(t2.groups[0].total).toBe(22);
    expect(lawOf(t2.groups[0].scenario.priors[0].conditionals.b as Discrete)).toEqual([
      [7, 1 / 2],
      [10, 1 / 2],
    ]);
    await expect(statisticFromTable(m, { statistic: { kind: 'mean', column: 'x', unit: 'hh' }, secretColumn: 's' })).rejects.toThrow(
      /mean:x: 1 of 4 rows have no number in 'x'/,
    );
  });

  it('a missing value that depends on the secret is in the laws: the sum needs the noise of the count of values, never "no noise"', async () => {
    // Every value is 5; whether it is missing depends on the secret (present for all b, for 2 of 10 a).
    const rows = ['s,x', ...Array(10).fill('b,5'), ...Array(2).fill('a,5'), ...Array(8).fill('a,')];
    const f = csv('missing-by-secret.csv', `${rows.join('\n')}\n`);
    const sum = await statisticFromTable(f, { statistic: { kind: 'sum', column: 'x' }, secretColumn: 's' });
    expect(sum.uninformative).toBe(false);
    expect(sum.zeroed).toBe(8);
    expect(lawOf(sum.groups[0].scenario.priors[0].conditionals.a as Discrete)).toEqual([
      [0, 0.8],
      [5, 0.2],
    ]);
    // The sum is 5 × the count of rows with a value: its scale is 5 times the count's.
    const count = await statisticFromTable(f, { statistic: { kind: 'count', predicate: 'x IS NOT NULL' }, secretColumn: 's' });
    const noise = { mechanism: 'laplace' as const, method: 'exact' as const };
    const b = (t: typeof sum) => calibrateFor(t.groups[0].scenario, { kind: 'renyi', alpha: 2, epsilon: 1 }, noise).scale;
    expect(b(sum) / (5 * b(count))).toBeCloseTo(1, 5);
    await expect(statisticFromTable(f, { statistic: { kind: 'mean', column: 'x' }, secretColumn: 's' })).rejects.toThrow(/8 of 20 rows have no number/);
  });

  it("public groups: each group's scale is that group's own calibration", async () => {
    const rows = ['g,x,s'];
    for (let i = 0; i < 60; i++) rows.push(`${i % 3 === 0 ? 'north' : 'south'},${(i * 7) % 11},${i % 2 ? 'yes' : 'no'}`);
    const all = csv('groups.csv', `${rows.join('\n')}\n`);
    const only = (g: string) => csv(`only-${g}.csv`, `${[rows[0], ...rows.slice(1).filter((r) => r.startsWith(`${g},`))].join('\n')}\n`);
    const t = await statisticFromTable(all, { statistic: { kind: 'mean', column: 'x' }, secretColumn: 's', groupBy: 'g' });
    expect(t.groups.map((g) => g.group)).toEqual(['north', 'south']);
    for (const g of t.groups) {
      const alone = (await statisticFromTable(only(g.group), { statistic: { kind: 'mean', column: 'x' }, secretColumn: 's' })).groups[0];
      expect(g.units).toBe(alone.units);
      const noise = { mechanism: 'laplace' as const, method: 'exact' as const };
      const a = calibrateFor(g.scenario, { kind: 'renyi', alpha: 2, epsilon: 1 }, noise).scale;
      const b = calibrateFor(alone.scenario, { kind: 'renyi', alpha: 2, epsilon: 1 }, noise).scale;
      expect(a).toBe(b);
    }
  });

  it("audit --group-by: each public group audited on its own rows at the scale in the statistic's units; it fails when one group does", async () => {
    const rows = ['g,x,s'];
    for (let i = 0; i < 60; i++) rows.push(`${i % 3 === 0 ? 'north' : 'south'},${(i * 7) % 11},${i % 2 ? 'yes' : 'no'}`);
    const all = csv('audit-groups.csv', `${rows.join('\n')}\n`);
    const only = (g: string) => csv(`audit-only-${g}.csv`, `${[rows[0], ...rows.slice(1).filter((r) => r.startsWith(`${g},`))].join('\n')}\n`);
    const args = ['--secret-column', 's', '--query', 'mean:x', '--alpha', '2', '--epsilon', '1', '--mechanism', 'laplace'];
    const cal = JSON.parse((await inProcess('calibrate', '--data', all, ...args, '--group-by', 'g', '--method', 'exact', '--json')).stdout);
    const scales = cal.groups.map((g: { results: { scale: number }[] }) => g.results[0].scale) as number[];
    const widest = Math.max(...scales);
    const at = async (scale: number) => inProcess('audit', '--data', all, ...args, '--group-by', 'g', '--scale', String(scale), '--json');
    const pass = await at(widest);
    expect(pass.status).toBe(0);
    const j = JSON.parse(pass.stdout);
    expect(j.verdict).toBe('pass');
    expect(j.groups.map((x: { group: string }) => x.group)).toEqual(['north', 'south']);
    // Each group's rows are its own table's audit at the same scale.
    for (const x of j.groups) {
      const alone = JSON.parse((await inProcess('audit', '--data', only(x.group), ...args, '--scale', String(widest), '--json')).stdout);
      expect(x.rows.map((r: { divergence: number }) => r.divergence)).toEqual(alone.rows.map((r: { divergence: number }) => r.divergence));
    }
    // 2% below the widest group's calibrated scale, that group fails (exit 1) and the verdict with it.
    const fail = await at(widest * 0.98);
    expect(fail.status).toBe(1);
    const f = JSON.parse(fail.stdout);
    expect(f.verdict).toBe('fail');
    expect(f.groups[scales.indexOf(widest)].verdict).toBe('fail');
  });

  it("a released mean is unbiased: 2,000 seeded draws average within 4 standard errors of the table's mean", async () => {
    const t = await heart('mean:chol');
    const g = t.groups[0];
    const r = release(g.scenario, { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 }, g.total, { count: 2000, random: seededSource(7n) });
    const to = toStatistic(g);
    const values = r.values.map(to.value);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const sd = Math.SQRT2 * to.scale(r.scale);
    expect(Math.abs(mean - g.total / g.units)).toBeLessThan((4 * sd) / Math.sqrt(2000));
    expect(g.total / g.units).toBeCloseTo(246.693, 3);
  });

  it('plans by accuracy: the ε found gives ±H or better, and 1% less ε does not', async () => {
    const g = (await heart('share:chol > 240')).groups[0];
    const halfWidth = (epsilon: number) => {
      const r = calibrateFor(g.scenario, { kind: 'renyi', alpha: 2, epsilon }, { mechanism: 'laplace', method: 'exact' });
      return mechanismDef('laplace').halfWidth(toStatistic(g).scale(r.scale), 0.95, noiseOptions({}));
    };
    const H = 0.02;
    const { epsilon } = await smallestEpsilon(async (e) => halfWidth(e), H);
    expect(halfWidth(epsilon)).toBeLessThanOrEqual(H);
    expect(halfWidth(epsilon * 0.99)).toBeGreaterThan(H);
    const cli = await inProcess(
      'calibrate',
      '--data',
      HEART.location,
      '--query',
      'share:chol > 240',
      '--secret-column',
      'fbs',
      '--method',
      'exact',
      '--target-halfwidth',
      '0.02',
      '--json',
    );
    expect(cli.status).toBe(0);
    const out = JSON.parse(cli.stdout);
    expect(out.epsilon).toBe(epsilon);
    expect(out.groups[0].results[0].halfWidth).toBeLessThanOrEqual(H);
  });

  it('release computes the statistic and prints it per group in its own units', async () => {
    const r = await inProcess('release', '--data', HEART.location, '--query', 'mean:chol', '--secret-column', 'fbs', '--group-by', 'sex', '--json');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.releases.map((x: { group: string; units: number }) => [x.group, x.units])).toEqual([
      ['0.0', 97],
      ['1.0', 206],
    ]);
    for (const x of out.releases) {
      expect(x.interval[0]).toBeLessThanOrEqual(x.value);
      expect(x.interval[1]).toBeGreaterThanOrEqual(x.value);
      expect(x.value).toBeGreaterThan(150);
      expect(x.value).toBeLessThan(350);
    }
  });
});

describe('secret predicates on the queried column', () => {
  const secrets = (old: string) => ['--secret', `old=${old}`, '--secret', `young=NOT (${old})`];
  it("a predicate comparing the statistic's column with a number reads it as a number (the same laws as an explicit cast)", async () => {
    const run = (old: string) => inProcess('calibrate', '--data', 'examples/heart.csv', ...secrets(old), '--query', 'sum:age', '--method', 'theorem', '--json');
    const plain = await run('age >= 55');
    expect(plain.status).toBe(0);
    const cast = await run('CAST(age AS DOUBLE) >= 55');
    const scale = (r: { stdout: string }) => JSON.parse(r.stdout).groups[0].results.map((x: { scale: number }) => x.scale);
    expect(scale(plain)).toEqual(scale(cast));
    expect(scale(plain)[0]).toBeGreaterThan(0);
  });
  it('a predicate reads the very numbers the laws read: a text that is no number (0x96, n/a) is missing for both', async () => {
    // As the secret column `grp` says: x ≥ 100 is hi; 99.5, and texts with no number, lo. Were the
    // predicate to read 0x96 as 150 (a sniffed type), that row would be hi and the laws would change.
    const f = csv('typed-predicate.csv', 'x,grp\n150,hi\n200,hi\n0x96,lo\n99.5,lo\nn/a,lo\n120,hi\n3,lo\n');
    const scale = async (...secret: string[]) => {
      const r = await inProcess('calibrate', '--data', f, ...secret, '--query', 'sum:x', '--method', 'theorem', '--json');
      expect(r.stderr).toBe('');
      return JSON.parse(r.stdout).groups[0].results[0].scale as number;
    };
    const byPredicate = await scale('--secret', 'hi=x >= 100', '--secret', 'lo=x < 100 OR x IS NULL');
    expect(byPredicate).toBe(await scale('--secret-column', 'grp'));
  });
  it('a text function on the queried column (read as a number) is refused naming the cast that reads it as text', async () => {
    const r = await inProcess('calibrate', '--data', 'examples/heart.csv', ...secrets("age LIKE '6%'"), '--query', 'sum:age');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^error: --secret: the predicate of 'old' was rejected: .*; 'age' is read as a number \(the query's column\): text functions need a cast \(CAST\(age AS VARCHAR\)/,
    );
  });
  it('a predicate ordering a public group column (read as text) is refused naming the column and the way out', async () => {
    const r = await inProcess('calibrate', '--data', 'examples/heart.csv', ...secrets('age >= 55 AND sex >= 1'), '--query', 'sum:oldpeak', '--group-by', 'sex');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^error: --secret: the predicate of 'old' was rejected: .*; 'sex' is read as text \(values as written\): compare with a quoted value \(sex = '…'\) or cast/,
    );
  });
});

describe('statistics: bad input', () => {
  const run = (...args: string[]) => inProcess('calibrate', '--data', HEART.location, '--secret-column', 'fbs', ...args);
  it.each([
    [['--query', 'mean:nosuch'], /--query: unknown column 'nosuch'/],
    [['--query', 'sum:'], /--query: sum: names no column/],
    [['--query', 'count:chol > 1; DROP TABLE x'], /--query: the predicate of 'count' must be one SQL expression/],
    [['--query', 'count:nosuch > 1'], /--query: the predicate was rejected/],
    [['--query', 'mean:chol', '--unit', 'chol'], /--unit: names the query column 'chol'/],
    [['--query', "count:(SELECT max(chol) FROM read_csv('x.csv')) > 1"], /--query: count: the predicate may read only the row's own columns/],
    [['--query', 'mean:fbs'], /--query: releases the secret column 'fbs' itself; name another column \(count:fbs = '…' counts/],
    [['--query', 'median:chol'], /--query: unknown column 'median:chol' .*; nor is it a statistic: sum:COL \| mean:COL/],
    [['--query', 'share:fbs > 0'], /--query: the predicate was rejected: .*; the secret column 'fbs' is read as text/],
    [['--query', 'mean:chol', '--group-by', 'fbs'], /--group-by: names the secret column 'fbs'/],
    [['--query', 'mean:chol', '--group-by', 'age', '--method', 'theorem', '--values', '0.0,1.0', '--unit', 'sex'], /--unit: unit '.*' has rows in two groups/],
  ])('%j exits 2 naming the field', async (args, message) => {
    const r = await run(...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('release says a misspelt statistic is not one (not that --value is missing)', async () => {
    for (const q of ['SUM:chol', 'median:chol']) {
      const r = await inProcess('release', '--data', HEART.location, '--secret-column', 'fbs', '--query', q);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^error: --query: '${q}' is not a statistic: sum:COL`));
    }
  });

  it('release of a sequence without --value names the two ways to give its count (it said the chain query was not a statistic)', async () => {
    const seattle = ['--data', 'test/fixtures/weather/seattle-weather.csv.gz', '--sequence', 'weather', '--order-by', 'date', '--query', 'count:rain'];
    const r = await inProcess('release', ...seattle, '--length', '60');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: --value: is required with --sequence: the series' count:rain as you counted it; .*--window 60 for the whole series/);
    // The way it names works: one window of the whole series, counted from the table.
    const whole = await inProcess('release', ...seattle, '--length', '60', '--window', '60', '--json');
    expect(whole.status).toBe(0);
    expect(JSON.parse(whole.stdout).windows.lengths).toEqual([60]);
  });

  it("audit takes public groups by --group-by or --given alike (one scale for every group, in the statistic's units)", async () => {
    const run = (flag: string) =>
      inProcess('audit', '--data', HEART.location, '--secret-column', 'fbs', '--query', 'sum:chol', '--scale', '20', flag, 'cp', '--json');
    const [a, b] = [await run('--given'), await run('--group-by')];
    expect(a.status).toBe(b.status);
    expect(JSON.parse(a.stdout).groups).toEqual(JSON.parse(b.stdout).groups);
    expect(JSON.parse(a.stdout).groups.map((g: { group: string }) => g.group)).toEqual(['1.0', '2.0', '3.0', '4.0']);
  });

  it('a text column, an all-missing column and n = 0 are clear errors', async () => {
    const f = csv('bad.csv', 'x,y,s\na,,p\nb,,q\n');
    const text = await inProcess('calibrate', '--data', f, '--query', 'mean:x', '--secret-column', 's');
    expect(text.status).toBe(2);
    expect(text.stderr).toMatch(/--query: column 'x' has no number in any of its 2 rows/);
    const empty = await inProcess('calibrate', '--data', f, '--query', 'mean:y', '--secret-column', 's');
    expect(empty.status).toBe(2);
    expect(empty.stderr).toMatch(/--query: /);
  });

  it('values or totals of magnitude 2⁵³ or more (no longer exact as doubles) are refused, by the engine and the page alike', async () => {
    const text = 's,x\na,9007199254740993\nb,9007199254740992\na,-9007199254740992\nb,-9007199254740992\n';
    const f = csv('huge.csv', text);
    const r = await inProcess('release', '--data', f, '--query', 'sum:x', '--secret-column', 's', '--allow-no-noise');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: --query: column 'x' holds a value of magnitude .* ≥ 2⁵³/);
    const { statisticFromText } = await import('../src/api/statisticLaws.js');
    const { parseDelimited } = await import('../src/sources/csvText.js');
    expect(() => statisticFromText(parseDelimited(text), { statistic: { kind: 'sum', column: 'x' }, secretColumn: 's', name: 't' })).toThrow(/≥ 2⁵³/);
    // A total that reaches 2⁵³ from exact values is refused too.
    const sum = csv('huge-total.csv', 's,x\na,4503599627370496\nb,4503599627370496\n');
    expect((await inProcess('calibrate', '--data', sum, '--query', 'sum:x', '--secret-column', 's')).stderr).toMatch(/add up to .* ≥ 2⁵³/);
    // So is one whose running sum passes 2⁵³ on the way to a small total (2⁵² + (2⁵² + 1) rounds to 2⁵³,
    // and the total 1 would read 0), within a unit and without.
    const running = 's,u,x\na,1,4503599627370496\na,1,4503599627370497\nb,2,-4503599627370496\nb,2,-4503599627370496\n';
    const rf = csv('huge-running.csv', running);
    for (const unit of [[], ['--unit', 'u']]) {
      const q = await inProcess('release', '--data', rf, '--query', 'sum:x', '--secret-column', 's', '--allow-no-noise', ...unit);
      expect(q.status).toBe(2);
      expect(q.stderr).toMatch(/^error: --query: the magnitudes of the statistic's rows add up to .* ≥ 2⁵³/);
      expect(() =>
        statisticFromText(parseDelimited(running), {
          statistic: { kind: 'sum', column: 'x', ...(unit.length ? { unit: 'u' } : {}) },
          secretColumn: 's',
          name: 't',
        }),
      ).toThrow(/add up to .* ≥ 2⁵³/);
    }
  });

  it('a group with rows of one secret is released only with --leave-out-groups, and then neither named nor its rows said to be used', async () => {
    const f = csv('small.csv', 'g,x,s\nbig,1,a\nbig,2,b\nbig,3,a\nlone,9,a\nlone,4,a\n');
    const args = ['release', '--data', f, '--query', 'mean:x', '--secret-column', 's', '--group-by', 'g', '--method', 'theorem'];
    // Without the flag: refused, naming the group to the curator (its absence would tell its rows' secret).
    const refused = await inProcess(...args);
    expect(refused.status).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^error: --leave-out-groups: 1 of 2 groups of 'g' hold rows of fewer than two secret values \(lone\)/);
    const r = await inProcess(...args, '--leave-out-groups');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/1 group\(s\) left out, not released/);
    // The published text names no left-out group, says nothing of its secret, and counts its units as unreleased.
    expect(r.stdout).not.toMatch(/lone/);
    expect(r.stdout).toMatch(/5 rows read; 0 left out of the statistic .*; 2 unit\(s\) of the groups left out are in no released value/);
    const j = JSON.parse((await inProcess(...args, '--leave-out-groups', '--json')).stdout);
    expect(j.source.leftOut).toEqual({ groups: 1, units: 2 });
    expect(JSON.stringify(j)).not.toMatch(/lone/);
    // The flag belongs to a per-group release of a statistic.
    const stray = await inProcess('release', '--data', f, '--query', 'mean:x', '--secret-column', 's', '--method', 'theorem', '--leave-out-groups');
    expect(stray.status).toBe(2);
    expect(stray.stderr).toMatch(/^error: --leave-out-groups: goes with a release of a statistic/);
  });
});

describe('a statistic in a spec file ("statistic": one unit\'s contribution laws and n)', () => {
  const spec = (name: string) => join(dir, name);
  it('--spec-out writes the laws and n, and calibrate --spec gives the same scales to the last bit', async () => {
    for (const [query, extra] of [
      ['mean:chol', ['--alpha', '2']],
      ['count:chol > 240', ['--alpha', 'inf', '--epsilon', '0.01']],
      ['share', ['--alpha', '3', '--epsilon', '0.001', '--method', 'coupled']],
    ] as const) {
      const out = spec(`${query.replace(/\W/g, '_')}.json`);
      const table = await inProcess('calibrate', '--data', HEART.location, '--query', query, '--secret-column', 'fbs', ...extra, '--spec-out', out, '--json');
      expect(table.status).toBe(0);
      const fromSpec = await inProcess('calibrate', '--spec', out, '--json');
      expect(fromSpec.status).toBe(0);
      const scales = (r: { stdout: string }) => JSON.parse(r.stdout).groups[0].results.map((x: { scale: number }) => x.scale);
      expect(scales(fromSpec)).toEqual(scales(table));
      expect(JSON.parse(fromSpec.stdout).statistic).toMatchObject({ kind: parseStatistic(query)!.kind, label: JSON.parse(table.stdout).statistic.label });
    }
  });
  it("account --spec takes each release's scale in the statistic's units (times n, rounded down, on one unit's laws) and gives --next in them (rounded up)", async () => {
    const out = spec('account-mean.json');
    await inProcess('calibrate', '--data', HEART.location, '--query', 'mean:chol', '--secret-column', 'fbs', '--alpha', '2', '--spec-out', out);
    const n = JSON.parse(readFileSync(out, 'utf8')).statistic.units as number;
    expect(n).toBe(303);
    // The same laws without the statistic: scales typed on one unit's contribution.
    const plain = spec('account-plain.json');
    const { statistic: _, ...laws } = JSON.parse(readFileSync(out, 'utf8'));
    writeFileSync(plain, JSON.stringify(laws));
    const inUnits = await inProcess(
      'account',
      '--spec',
      out,
      '--release',
      'mechanism=laplace,scale=0.1',
      '--release',
      'mechanism=gaussian,scale=0.2',
      '--alpha',
      '2,5',
      '--json',
    );
    const onLaws = await inProcess(
      'account',
      '--spec',
      plain,
      '--release',
      'mechanism=laplace,scale=30.3',
      '--release',
      'mechanism=gaussian,scale=60.6',
      '--alpha',
      '2,5',
      '--json',
    );
    expect(inUnits.status, inUnits.stderr).toBe(0);
    const levels = (r: { stdout: string }) => JSON.parse(r.stdout).rows.map((x: { divergence: number }) => x.divergence);
    // 0.1·303 rounds down below 30.3: the account in the statistic's units is never below the one on the laws, and within rounding of it.
    for (const [k, v] of levels(inUnits).entries()) {
      expect(v).toBeGreaterThanOrEqual(levels(onLaws)[k]);
      expect(v - levels(onLaws)[k]).toBeLessThan(1e-12 * v);
    }
    expect(JSON.parse(inUnits.stdout).statistic).toMatchObject({ units: 303, label: 'mean of chol' });
    const next = (r: { stdout: string }) => JSON.parse(r.stdout).next.scale as number;
    const a = await inProcess(
      'account',
      '--spec',
      out,
      '--release',
      'mechanism=laplace,scale=0.1',
      '--next',
      'laplace',
      '--alpha',
      '2',
      '--epsilon',
      '1',
      '--json',
    );
    const b = await inProcess(
      'account',
      '--spec',
      plain,
      '--release',
      'mechanism=laplace,scale=30.3',
      '--next',
      'laplace',
      '--alpha',
      '2',
      '--epsilon',
      '1',
      '--json',
    );
    expect(next(a)).toBeGreaterThanOrEqual(next(b) / n);
    expect(next(a) / (next(b) / n) - 1).toBeLessThan(1e-9);
  });
  it("a spec statistic's ledger names the --scale that fits in the statistic's units (n times less than the ledger's own): at it the release fits, 1% under it is refused", async () => {
    const out = spec('ledger-fit.json');
    await inProcess('calibrate', '--data', HEART.location, '--query', 'mean:chol', '--secret-column', 'fbs', '--alpha', '2', '--spec-out', out);
    const L = spec('spec-fit.ledger');
    expect((await inProcess('ledger', 'init', '--ledger', L, '--spec', out, '--alpha', '2', '--epsilon', '2.5')).status).toBe(0);
    expect((await inProcess('release', '--spec', out, '--value', '246.5', '--ledger', L)).status).toBe(0);
    const refused = await inProcess('release', '--spec', out, '--value', '246.5', '--ledger', L, '--epsilon', '1.2');
    expect(refused.status).toBe(2);
    const own = Number(/still fits is ([\d.e+-]+) on one unit's contribution/.exec(refused.stderr)![1]);
    const named = /in the statistic's units: --scale ([\d.e+-]+)\)/.exec(refused.stderr)![1];
    expect(Number(named) / (own / 303)).toBeCloseTo(1, 8);
    expect((await inProcess('release', '--spec', out, '--value', '246.5', '--ledger', L, '--scale', String(Number(named) * 0.99))).status).toBe(2);
    const at = await inProcess('release', '--spec', out, '--value', '246.5', '--ledger', L, '--scale', named, '--json');
    expect(at.status, at.stderr).toBe(0);
    expect(JSON.parse(at.stdout).ledger.level).toBeLessThanOrEqual(2.5);
  });

  it("a ledger opened on a spec's statistic keeps its typed releases as one value, accounted on one unit's contribution (the statistic's scale × n)", async () => {
    const out = spec('ledger-mean.json');
    await inProcess('calibrate', '--data', HEART.location, '--query', 'mean:chol', '--secret-column', 'fbs', '--alpha', '2', '--spec-out', out);
    const L = spec('spec-stat.ledger');
    const init = await inProcess('ledger', 'init', '--ledger', L, '--spec', out, '--alpha', '2', '--epsilon', '1.5');
    expect(init.status).toBe(0);
    expect(init.stdout).toContain('taken to be of one and the same value');
    const r = await inProcess('release', '--spec', out, '--value', '246.5', '--ledger', L, '--json');
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    const scale = j.releases[0].scale as number;
    // The level the ledger recorded is the account of that release in the statistic's units.
    const acc = await inProcess('account', '--spec', out, '--release', `mechanism=laplace,scale=${scale}`, '--alpha', '2', '--json');
    const level = JSON.parse(acc.stdout).rows[0].divergence as number;
    expect(j.ledger.level).toBeGreaterThanOrEqual(level * (1 - 1e-9));
    expect(j.ledger.level).toBeLessThanOrEqual(level * (1 + 1e-9));
    expect(j.ledger.level).toBeLessThanOrEqual(1);
    const show = JSON.parse((await inProcess('ledger', 'show', '--ledger', L, '--json')).stdout);
    expect(show.releases[0].scale / (scale * 303)).toBeCloseTo(1, 9);
    expect(show.releases[0].query).toContain('mean of chol');
    // A second release at the same scale passes the budget: refused before anything is shown.
    const again = await inProcess('release', '--spec', out, '--value', '246.5', '--ledger', L);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/^error: --ledger: refused/);
    expect(again.stdout).toBe('');
    // The same laws under another statistic (another column whose per-unit laws coincide) are not this ledger's.
    const twin = spec('ledger-twin.json');
    const j0 = JSON.parse(readFileSync(out, 'utf8'));
    writeFileSync(twin, JSON.stringify({ ...j0, statistic: { ...j0.statistic, column: 'trestbps' } }));
    const same = await inProcess('release', '--spec', twin, '--value', '130', '--ledger', L, '--scale', '50');
    expect(same.status).toBe(2);
    expect(same.stderr).toMatch(/^error: --ledger: was opened for other secret-conditional laws/);
    // Another spec's laws are not this ledger's.
    const other = spec('ledger-other.json');
    await inProcess('calibrate', '--data', HEART.location, '--query', 'mean:trestbps', '--secret-column', 'fbs', '--alpha', '2', '--spec-out', other);
    const wrong = await inProcess('release', '--spec', other, '--value', '130', '--ledger', L);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toMatch(/^error: --ledger: /);
  });
  it("audit --spec takes the scale in the statistic's units, as audit --data does", async () => {
    const out = spec('audit-mean.json');
    await inProcess('calibrate', '--data', HEART.location, '--query', 'mean:chol', '--secret-column', 'fbs', '--alpha', '2', '--spec-out', out);
    const a = await inProcess('audit', '--spec', out, '--scale', '0.2', '--json');
    const b = await inProcess('audit', '--data', HEART.location, '--query', 'mean:chol', '--secret-column', 'fbs', '--scale', '0.2', '--alpha', '2', '--json');
    expect(a.status).toBe(0);
    const rows = (r: { stdout: string }) => JSON.parse(r.stdout).rows.map((x: { divergence: number }) => x.divergence);
    expect(rows(a)).toEqual(rows(b));
  });
  it("release --spec --value: the typed statistic plus noise at calibrate --spec's scale, in the statistic's units; no ledger, no missing value", async () => {
    const out = spec('release-mean.json');
    await inProcess('calibrate', '--data', HEART.location, '--query', 'mean:chol', '--secret-column', 'fbs', '--alpha', '2', '--spec-out', out);
    const cal = JSON.parse((await inProcess('calibrate', '--spec', out, '--json')).stdout).groups[0].results[0];
    const r = await inProcess('release', '--spec', out, '--value', '246.5', '--json');
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    const x = j.releases[0];
    expect(x.scale).toBe(cal.scale);
    expect(j.source).toEqual({ spec: out, value: 246.5 });
    expect(x.value).not.toBe(246.5);
    // The interval is the value ± the error bar, rounded outward.
    expect(x.interval[0]).toBeLessThanOrEqual(x.value - x.halfWidth);
    expect(x.interval[1]).toBeGreaterThanOrEqual(x.value + x.halfWidth);
    expect(x.interval[1] - x.interval[0]).toBeLessThan(2 * x.halfWidth * (1 + 1e-12));
    for (const [args, flag] of [
      [['release', '--spec', out], '--value'],
      [['release', '--spec', out, '--value', '246.5', '--ledger', spec('missing.ledger')], '--ledger'],
      [['release', '--spec', out, '--value', '0x10'], '--value'],
    ] as const) {
      const bad = await inProcess(...args);
      expect(bad.status).toBe(2);
      expect(bad.stderr).toMatch(new RegExp(`^error: ${flag}: `));
    }
  });
  it('is refused where its statistic would be taken as one value, and checked against its laws', async () => {
    const out = spec('refused-mean.json');
    await inProcess('calibrate', '--data', HEART.location, '--query', 'mean:chol', '--secret-column', 'fbs', '--alpha', '2', '--spec-out', out);
    for (const args of [['calibrate', '--spec', out, '--guarantee', 'mi']]) {
      const r = await inProcess(...args);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(
        /^error: spec\.statistic: is calibrated \(calibrate\), audited \(audit\), accounted \(account --release, in its units\) and released with its value typed .*kept in a ledger opened on it/,
      );
    }
    const bad = csv(
      'count-half.json',
      JSON.stringify({
        statistic: { kind: 'count', units: 10 },
        priors: [{ name: 'p', conditionals: { a: { values: [0, 0.5], counts: [1, 1] }, b: { values: [0, 1], counts: [1, 3] } } }],
        alpha: 2,
        epsilon: 1,
      }),
    );
    const r = await inProcess('calibrate', '--spec', bad);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/spec\.statistic: a count's contribution is a whole number of rows ≥ 0; prior 'p', secret 'a' has the value 0\.5/);
    const grouped = await inProcess(
      'calibrate',
      '--data',
      HEART.location,
      '--query',
      'mean:chol',
      '--secret-column',
      'fbs',
      '--group-by',
      'sex',
      '--spec-out',
      spec('g.json'),
    );
    expect(grouped.status).toBe(2);
    expect(grouped.stderr).toMatch(/--spec-out: writes one statistic of the whole table/);
  });
});
