// One ledger per data source (docs/math.md §20): statistics of one table accounted together.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { account } from '../src/account/account.js';
import { recordStatistics, sourceIdentity, sourceLedgerLaws, type StatisticsSource } from '../src/api/sourceLedger.js';
import { statisticsScenario } from '../src/api/jointStatistics.js';
import { privateGroupsStatistic, statisticFromTable } from '../src/api/statistic.js';
import { calibrate } from '../src/calibrate/calibrate.js';
import { coord, atomsOf, pointLaw } from '../src/distribution/points.js';
import { checkLedger, initLedger } from '../src/ledger/ledger.js';
import { ledgerStore } from '../src/ledger/store.js';
import { parseStatistic } from '../src/sources/statistic.js';
import { uciQuirks } from '../src/uci/formats.js';
import { runInProcess as inProcess } from './inProcess.js';
import { vectorRenyi2d } from './quadrature2d.js';
import { decimalUp } from '../src/cli/format.js';

const HEART_PATH = 'test/fixtures/uci/heart-disease/processed.cleveland.data.gz';
const HEART: StatisticsSource = { source: { kind: 'csv', location: HEART_PATH, ...uciQuirks(HEART_PATH) }, secretColumn: 'fbs' };
const dir = mkdtempSync(join(tmpdir(), 'pufferfish-source-ledger-'));
let n = 0;
const fresh = () => ledgerStore(join(dir, `l${++n}.ledger`));
const opened = async (src: StatisticsSource, epsilon: number, alphas = [2]) => {
  const store = fresh();
  const { identity, name } = await sourceIdentity(src);
  await initLedger(store, { identity, name }, { alphas, epsilon });
  return store;
};
const laplace = (scale: number) => ({ mechanism: 'laplace' as const, scale, count: 1 });

/** A small table: a secret s, a value x and a flag f, correlated with s (every unit has both values). */
function smallTable(): StatisticsSource {
  const rows = ['s,x,f,g'];
  const data: [string, number, number, string][] = [
    ['a', 1, 0, 'u'],
    ['a', 2, 0, 'u'],
    ['a', 2, 1, 'v'],
    ['a', 4, 0, 'v'],
    ['b', 3, 1, 'u'],
    ['b', 5, 1, 'u'],
    ['b', 4, 0, 'v'],
    ['b', 6, 1, 'v'],
    ['b', 6, 1, 'v'],
  ];
  for (const [s, x, f, g] of data) rows.push(`${s},${x},${f},${g}`);
  const p = join(dir, `small${++n}.csv`);
  writeFileSync(p, `${rows.join('\n')}\n`);
  return { source: { kind: 'csv', location: p }, secretColumn: 's' };
}

describe('a source ledger: statistics of one table accounted together', () => {
  it('one statistic alone is accounted exactly: the level is the exact accountant on its contribution laws, to the last bit', async () => {
    const store = await opened(HEART, 5);
    const [r] = await recordStatistics(store, HEART, [{ statistic: { query: 'mean:chol' }, release: laplace(30) }]);
    const t = await statisticFromTable(HEART.source, { statistic: parseStatistic('mean:chol')!, secretColumn: 'fbs' });
    const exact = account(t.groups[0].scenario, [laplace(30)], { alphas: [2] });
    expect(exact.rows[0].method).toBe('exact');
    expect(r.level.level).toBe(exact.rows[0].divergence);
    expect(r.level.accounting.rows[0].method).toBe('exact');
  });

  it('public groups: a per-group statistic is accounted within each group, each level its own group’s exact one', async () => {
    const store = await opened(HEART, 50);
    const t = await statisticFromTable(HEART.source, { statistic: parseStatistic('mean:chol')!, secretColumn: 'fbs', groupBy: 'sex' });
    const scales = [25, 35];
    const recorded = await recordStatistics(
      store,
      HEART,
      t.groups.map((g, i) => ({ statistic: { query: 'mean:chol', groupBy: 'sex', group: g.group }, release: laplace(scales[i]) })),
    );
    const own = t.groups.map((g, i) => account(g.scenario, [laplace(scales[i])], { alphas: [2] }).rows[0].divergence);
    expect(recorded[1].level.level).toBe(Math.max(...own));
  });

  it('a group the table does not have, or a group by the secret, is refused: it was recorded at level 0 (a release that tells nothing)', async () => {
    const store = await opened(HEART, 1);
    const tiny = laplace(0.01);
    // Heart's sex reads '0.0' and '1.0': '1' is no row's group.
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ query: 'sum:chol', groupBy: 'sex', group: '1' }, /^group: no unit of a protected secret has sex = '1' \(the groups with some: '0\.0', '1\.0'\)/],
      [{ query: 'sum:chol', groupBy: 'sex', group: 1 }, /^recorded\.0\.group: must be the group's value as the table's text/],
      [{ query: 'sum:chol', groupBy: 'sex' }, /^recorded\.0: a group release names both/],
      [{ query: 'sum:chol', groupBy: 'fbs', group: '1.0' }, /^recorded\.0\.groupBy: groups by the secret column 'fbs'/],
      [{ query: 'mean:fbs' }, /releases the secret column 'fbs' itself/],
      [{ query: 'sum:chol', group_by: 'sex' }, /^recorded\.0\.group_by: has a field/],
    ];
    for (const [statistic, refusal] of cases)
      await expect(recordStatistics(store, HEART, [{ statistic: statistic as never, release: tiny }])).rejects.toThrow(refusal);
    // A group whose rows are all left out of the laws (no secret, or a secret not protected) tells nothing either.
    const left = join(dir, 'left-out.csv');
    writeFileSync(left, 's,x,g\na,1,u\nb,2,u\na,3,v\nb,4,v\n,5,z\n,6,z\nc,7,w\n');
    const src: StatisticsSource = { source: { kind: 'csv', location: left }, secretColumn: 's', values: ['a', 'b'] };
    const leftStore = await opened(src, 1);
    for (const group of ['z', 'w'])
      await expect(recordStatistics(leftStore, src, [{ statistic: { query: 'sum:x', groupBy: 'g', group }, release: tiny }])).rejects.toThrow(
        new RegExp(`^group: no unit of a protected secret has g = '${group}' \\(the groups with some: 'u', 'v'\\)`),
      );
    // Twelve named groups and a NULL one: all twelve listed, no '…' for the NULL group (no name to give).
    const twelve = join(dir, 'twelve.csv');
    const names = Array.from({ length: 12 }, (_, k) => `g${String(k + 1).padStart(2, '0')}`);
    writeFileSync(twelve, `s,x,g\n${[...names, ''].flatMap((g, k) => [`a,${k},${g}`, `b,${k + 1},${g}`]).join('\n')}\n`);
    const twelveSrc: StatisticsSource = { source: { kind: 'csv', location: twelve }, secretColumn: 's', values: ['a', 'b'] };
    const twelveStore = await opened(twelveSrc, 1);
    await expect(recordStatistics(twelveStore, twelveSrc, [{ statistic: { query: 'sum:x', groupBy: 'g', group: 'g13' }, release: tiny }])).rejects.toThrow(
      new RegExp(`\\(the groups with some: ${names.map((n) => `'${n}'`).join(', ')}\\): a group`),
    );
    // The ledger holds none of them, and the group as the table writes it is refused by the budget.
    expect((await checkLedger(store, await sourceLedgerLaws(store, HEART))).problems).toEqual([]);
    await expect(recordStatistics(store, HEART, [{ statistic: { query: 'sum:chol', groupBy: 'sex', group: '1.0' }, release: tiny }])).rejects.toThrow(
      /refused/,
    );
  });

  it('an adversary who knows no group is covered from the first release on: a per-group first release no longer drops them (a sum at scale 0.01 recorded at level 0)', async () => {
    // g is strongly tied to the secret; x = 10 in g1, 0 in g2. A per-group count of nothing tells nothing.
    const table = join(dir, 'grouped-first.csv');
    const rows = [...Array(18).fill('a,10,g1'), ...Array(2).fill('b,10,g1'), ...Array(2).fill('a,0,g2'), ...Array(18).fill('b,0,g2')];
    writeFileSync(table, `s,x,g\n${rows.join('\n')}\n`);
    const src: StatisticsSource = { source: { kind: 'csv', location: table }, secretColumn: 's' };
    const nothing = (group: string) => ({ statistic: { query: 'count:x > 100', groupBy: 'g', group }, release: laplace(1000) });
    const sum = [{ statistic: { query: 'sum:x' }, release: laplace(0.01) }];
    const groupedFirst = await opened(src, 1);
    await recordStatistics(groupedFirst, src, [nothing('g1'), nothing('g2')]);
    const refusalOf = (store: typeof groupedFirst) =>
      recordStatistics(store, src, sum).then(
        () => '',
        (e: Error) => e.message,
      );
    const refusal = await refusalOf(groupedFirst);
    expect(refusal).toMatch(/refused: .* would bring the joint level to 2\.09\d+ \(D_α at α = 2\)/);
    // The same level as after a plain release first: the order of releases does not move the class.
    const plainFirst = await opened(src, 1);
    await recordStatistics(plainFirst, src, [{ statistic: { query: 'count:x > 100' }, release: laplace(1000) }]);
    await recordStatistics(plainFirst, src, [nothing('g1'), nothing('g2')]);
    const level = (m: string) => /joint level to ([\d.]+)/.exec(m)?.[1];
    expect(level(await refusalOf(plainFirst))).toBe(level(refusal));
  });

  it('a mean and a count: the joint level is never below an independent 2-D quadrature of the joint contribution law', async () => {
    const src = smallTable();
    const store = await opened(src, 100);
    await recordStatistics(store, src, [{ statistic: { query: 'mean:x' }, release: laplace(1.5) }]);
    const [r] = await recordStatistics(store, src, [{ statistic: { query: 'count:f = 1' }, release: laplace(0.8) }]);
    const scenario = await statisticsScenario(src, [{ query: 'mean:x' }, { query: 'count:f = 1' }], (await sourceIdentity(src)).identity);
    const laws = scenario.priors[0].conditionals;
    // The quadrature itself, on a known answer: one Laplace shift by 1 at scale 1, R₂(1) = log(2e/3 + e⁻²/3).
    const point = (x: number) => pointLaw([[x, 0]], { counts: [1] });
    const lap = (s: number) => ({ family: 'laplace', scale: s });
    expect(vectorRenyi2d(point(0), point(1), lap(1), lap(1), 2)).toBeCloseTo(Math.log((2 * Math.E) / 3 + Math.exp(-2) / 3), 8);
    const truth = Math.max(vectorRenyi2d(laws.a, laws.b, lap(1.5), lap(0.8), 2), vectorRenyi2d(laws.b, laws.a, lap(1.5), lap(0.8), 2));
    expect(truth).toBeGreaterThan(0.05);
    expect(r.level.level).toBeGreaterThanOrEqual(truth * (1 - 1e-8));
    // Two statistics released once each are accounted exactly (docs/math.md §12, "Exact in two dimensions").
    expect(r.level.level).toBeLessThanOrEqual(truth * (1 + 1e-8));
    expect(r.level.accounting.rows[0].method).toBe('exact');
    // And it is more than either statistic's level alone: the two are accounted as one vector.
    const alone = (await recordStatistics(await opened(src, 100), src, [{ statistic: { query: 'count:f = 1' }, release: laplace(0.8) }]))[0];
    expect(r.level.level).toBeGreaterThan(alone.level.level);
  });

  it('the joint law has one coordinate per release, each unit’s contribution; a unit outside a released group contributes 0', async () => {
    const src = smallTable();
    const s = await statisticsScenario(src, [{ query: 'sum:x' }, { query: 'count:f = 1', groupBy: 'g', group: 'u' }], (await sourceIdentity(src)).identity);
    // The class: adversaries who do not know g (before the per-group release), and those who do.
    expect(s.priors.map((p) => p.name).sort()).toEqual(['empirical', 'empirical | g="u"', 'empirical | g="v"']);
    const v = s.priors.find((p) => p.name.endsWith('"v"'))!;
    const b = v.conditionals.b;
    const atoms = Array.from({ length: atomsOf(b) }, (_, k) => [coord(b, k, 0), coord(b, k, 1)]);
    expect(atoms).toEqual([
      [4, 0],
      [6, 0],
    ]);
    expect(Array.from(b.masses)).toEqual([1 / 3, 2 / 3]);
  });

  it('refuses the release that would pass the budget, recording nothing; the check recomputes every level', async () => {
    const store = await opened(HEART, 0.5);
    const [first] = await recordStatistics(store, HEART, [{ statistic: { query: 'mean:chol' }, release: laplace(25) }]);
    expect(first.level.fits).toBe(true);
    await expect(recordStatistics(store, HEART, [{ statistic: { query: 'mean:chol' }, release: laplace(1) }])).rejects.toThrow(
      /refused: .*the smallest scale that still fits is/,
    );
    expect((await store.read()).rows).toHaveLength(1);
    const report = await checkLedger(store, await sourceLedgerLaws(store, HEART));
    expect(report.problems).toEqual([]);
    expect(report.current!.level).toBe(first.level.level);
  });

  it('a table whose rows changed is refused: the statistics recorded were of the rows as they were', async () => {
    const src = smallTable();
    const store = await opened(src, 5);
    await recordStatistics(store, src, [{ statistic: { query: 'sum:x' }, release: laplace(9) }]);
    writeFileSync(src.source.location, 's,x,f,g\na,1,0,u\nb,3,1,u\n');
    await expect(recordStatistics(store, src, [{ statistic: { query: 'sum:x' }, release: laplace(9) }])).rejects.toThrow(/rows have changed/);
  });
});

describe('private groups (--group-private): one scale for the vector of group values', () => {
  it('the stated scale meets ε: an independent 2-D quadrature of the released group sums is never above it', async () => {
    const src = smallTable();
    const t = await privateGroupsStatistic(src.source, { statistic: parseStatistic('sum:x')!, secretColumn: 's', groupBy: 'g' });
    expect(t.groups).toEqual([
      { group: 'u', total: 11 },
      { group: 'v', total: 22 },
    ]);
    // A unit's contribution lies in its own group's coordinate.
    const b = t.scenario.priors[0].conditionals.b;
    expect(Array.from({ length: atomsOf(b) }, (_, k) => [coord(b, k, 0), coord(b, k, 1)])).toContainEqual([0, 6]);
    const r = calibrate(t.scenario, { mechanism: 'laplace', method: 'best', alpha: 2, epsilon: 1 });
    const laws = t.scenario.priors[0].conditionals;
    const k = { family: 'laplace', scale: r.scale };
    const truth = Math.max(vectorRenyi2d(laws.a, laws.b, k, k, 2), vectorRenyi2d(laws.b, laws.a, k, k, 2));
    // Two groups: the exact accountant on ℝ² wins, so the scale is tight (within the oracle's 10⁻⁸).
    expect(r.winner).toBe('exact');
    expect(truth).toBeLessThanOrEqual(1);
    expect(truth).toBeGreaterThan(1 - 1e-6);
    expect(truth).toBeGreaterThan(0.2);
  });

  it('a household with rows in a group and rows without one is refused: it would count as two units', async () => {
    const p = join(dir, `split${++n}.csv`);
    writeFileSync(p, 'hh,s,g,x\n1,a,A,5\n1,a,,0\n2,a,A,4\n3,b,B,1\n4,b,A,1\n');
    const statistic = { ...parseStatistic('sum:x')!, unit: 'hh' };
    await expect(privateGroupsStatistic(p, { statistic, secretColumn: 's', groupBy: 'g' })).rejects.toThrow(
      /unit '1' has rows in two groups of 'g' \(or rows without one\)/,
    );
  });

  it('plans by accuracy over private groups: the ε printed gives every group ±H or better, and 1% less does not', async () => {
    const base = [
      'calibrate',
      '--data',
      HEART_PATH,
      '--secret-column',
      'fbs',
      '--query',
      'sum:chol',
      '--group-by',
      'sex',
      '--group-private',
      '--method',
      'coupled',
    ];
    const plan = await inProcess(...base, '--target-halfwidth', '500', '--json');
    expect(plan.status, plan.stderr).toBe(0);
    const { epsilon, targetHalfwidth } = JSON.parse(plan.stdout);
    expect(targetHalfwidth).toBe(500);
    const bar = async (e: number) => JSON.parse((await inProcess(...base, '--epsilon', String(e), '--json')).stdout).results[0].halfWidth;
    expect(await bar(epsilon)).toBeLessThanOrEqual(500);
    expect(await bar(epsilon * 0.99)).toBeGreaterThan(500);
  });

  it('the CLI releases one value per group at the common scale, and refuses --group-private without a statistic and its groups', async () => {
    const r = await inProcess(
      'release',
      '--data',
      HEART_PATH,
      '--secret-column',
      'fbs',
      '--query',
      'sum:chol',
      '--group-by',
      'sex',
      '--group-private',
      '--json',
    );
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.groupPrivate).toBe(true);
    // One scale for every group, and no group's size (it would place a unit in its group).
    expect(j.releases.map((x: { group: string }) => x.group)).toEqual(['0.0', '1.0']);
    expect(j.releases[0].scale).toBe(j.releases[1].scale);
    expect(r.stdout).not.toMatch(/"units"/);
    // A mean per private group divides by the group's size: refused, naming why.
    const mean = await inProcess('release', '--data', HEART_PATH, '--secret-column', 'fbs', '--query', 'mean:chol', '--group-by', 'sex', '--group-private');
    expect(mean.status).toBe(2);
    expect(mean.stderr).toMatch(/--group-private: a mean per private group divides by the group's number of units/);
    const bad = await inProcess('calibrate', '--data', HEART_PATH, '--secret-column', 'fbs', '--query', 'chol', '--group-private');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--group-private: goes with a statistic of a table/);
  });
});

describe('a source ledger never accounts less than it did: the attacks of its review', () => {
  const table = (text: string) => {
    const p = join(dir, `attack${++n}.csv`);
    writeFileSync(p, text);
    return { source: { kind: 'csv' as const, location: p }, secretColumn: 's' } satisfies StatisticsSource;
  };
  // g is correlated with the secret, and its group q holds one secret only.
  const correlated = () => table('s,x,y,g\na,1,0,p\na,2,1,p\nb,6,0,p\nb,7,1,q\nb,8,1,q\n');

  it('a per-group release keeps the earlier adversaries: the level never falls, and a single-secret group hides no unit', async () => {
    const src = correlated();
    const store = await opened(src, 100);
    const [first] = await recordStatistics(store, src, [{ statistic: { query: 'mean:x' }, release: laplace(3) }]);
    const grouped = await recordStatistics(store, src, [
      { statistic: { query: 'mean:y', groupBy: 'g', group: 'p' }, release: laplace(1) },
      { statistic: { query: 'mean:y', groupBy: 'g', group: 'q' }, release: laplace(1) },
    ]);
    expect(grouped[1].level.level).toBeGreaterThanOrEqual(first.level.level);
    const [again] = await recordStatistics(store, src, [{ statistic: { query: 'mean:x' }, release: laplace(3) }]);
    expect(again.level.level).toBeGreaterThan(grouped[1].level.level);
    expect((await checkLedger(store, await sourceLedgerLaws(store, src))).problems).toEqual([]);
  });

  it('a predicate reading a group column is refused (the ledger reads groups as text)', async () => {
    const src = table('s,x,k\na,1,30\na,2,100\nb,6,30\nb,7,100\n');
    const store = await opened(src, 100);
    await recordStatistics(store, src, [{ statistic: { query: 'mean:x', groupBy: 'k', group: '30' }, release: laplace(3) }]);
    await expect(recordStatistics(store, src, [{ statistic: { query: 'count:k > 50' }, release: laplace(1) }])).rejects.toThrow(
      /may not read the secret, unit or a --group-by column \('k'\)/,
    );
  });

  it('a renamed column changes the source: the fingerprint covers the columns, not only the rows', async () => {
    const src = table('s,x,y\na,1,5\nb,6,5\na,2,5\nb,7,5\n');
    const store = await opened(src, 100);
    await recordStatistics(store, src, [{ statistic: { query: 'mean:x' }, release: laplace(3) }]);
    writeFileSync(src.source.location, 's,y,x\na,1,5\nb,6,5\na,2,5\nb,7,5\n');
    await expect(recordStatistics(store, src, [{ statistic: { query: 'mean:y' }, release: laplace(3) }])).rejects.toThrow(/was opened for another source/);
  });

  it('one statistic released again: accounted exactly (on ℝ²), tending to its first release’s exact level, so a scale always fits', async () => {
    const src = correlated();
    const store = await opened(src, 1.2);
    const [first] = await recordStatistics(store, src, [{ statistic: { query: 'mean:x' }, release: laplace(7) }]);
    expect(first.level.level).toBeLessThan(1.2);
    const [second] = await recordStatistics(store, src, [{ statistic: { query: 'mean:x' }, release: laplace(1e4) }]);
    expect(second.level.level).toBeLessThan(first.level.level * 1.01);
    expect(second.level.level).toBeGreaterThanOrEqual(first.level.level);
    expect(second.level.accounting.rows[0].method).toBe('exact');
    // A third release of it: two exactly, the third at its widest shift (the chain rule on ℝ).
    const [third] = await recordStatistics(store, src, [{ statistic: { query: 'mean:x' }, release: laplace(1e4) }]);
    expect(third.level.level).toBeGreaterThanOrEqual(second.level.level);
    expect(third.level.level).toBeLessThan(first.level.level * 1.02);
    expect(third.level.accounting.rows[0].method).toBe('chained');
  });

  it('at α = ∞ the chain bound holds too: a second statistic costs at most its own widest shift', async () => {
    const src = correlated();
    const store = await opened(src, 100, [Infinity]);
    const [first] = await recordStatistics(store, src, [{ statistic: { query: 'sum:x' }, release: laplace(4) }]);
    const [second] = await recordStatistics(store, src, [{ statistic: { query: 'count:y = 1' }, release: laplace(5) }]);
    expect(second.level.level).toBeGreaterThanOrEqual(first.level.level);
    // The count's contributions spread over [0, 1]: its D∞ shift at b = 5 is 1/5.
    expect(second.level.level).toBeLessThanOrEqual((first.level.level + 1 / 5) * (1 + 1e-12));
  });

  it('an (ε, δ) budget no listed order can meet is refused when the ledger is opened', async () => {
    const { identity, name } = await sourceIdentity(HEART);
    await expect(initLedger(fresh(), { identity, name }, { alphas: [2, Infinity], epsilon: 4, delta: 1e-6 })).rejects.toThrow(
      /cannot meet \(ε = 4, δ = 0\.000001\) through the orders listed/,
    );
  });
});

describe('the CLI: ledger init --data, release --query … --ledger, show and check', () => {
  const flags = ['--data', HEART_PATH, '--secret-column', 'fbs'];
  it('a statistic the data alone meets the budget for is not recorded without noise: refused naming --ledger, nothing recorded', async () => {
    const ledger = join(dir, 'noiseless.ledger');
    expect((await inProcess('ledger', 'init', '--ledger', ledger, ...flags, '--alpha', '2', '--epsilon', '1')).status).toBe(0);
    const r = await inProcess('release', ...flags, '--query', 'count:age > 60', '--ledger', ledger);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: --ledger: this statistic needs no noise alone at this budget/);
    expect((await inProcess('ledger', 'show', '--ledger', ledger)).stdout).toMatch(/no release recorded yet/);
  });

  it('account --query STAT --release …: the level a release would bring, the one the ledger then records; nothing recorded', async () => {
    const ledger = join(dir, 'what-if.ledger');
    expect((await inProcess('ledger', 'init', '--ledger', ledger, ...flags, '--alpha', '2,8', '--epsilon', '3')).status).toBe(0);
    expect((await inProcess('release', ...flags, '--query', 'mean:age', '--epsilon', '0.5', '--ledger', ledger)).status).toBe(0);
    let [recorded, fitted] = [1, 0];
    for (const [query, groupBy, scale] of [
      ['count:chol > 240', 'sex', '6'],
      ['mean:chol', undefined, '0.3'],
      ['mean:chol', undefined, '0.5'],
    ] as const) {
      const by = groupBy ? ['--group-by', groupBy] : [];
      const whatIf = await inProcess(
        'account',
        '--ledger',
        ledger,
        ...flags,
        '--query',
        query,
        ...by,
        '--release',
        `mechanism=laplace,scale=${scale}`,
        '--json',
      );
      expect(whatIf.status, whatIf.stderr).toBe(0);
      const w = JSON.parse(whatIf.stdout);
      expect(w.recorded).toBe(false);
      expect(w.fits).toBe(w.level <= 3);
      // Nothing was recorded: still one release.
      const before = JSON.parse((await inProcess('ledger', 'show', '--ledger', ledger, '--json')).stdout);
      expect(before.releases).toHaveLength(recorded);
      if (!w.fits) continue;
      fitted++;
      recorded += groupBy ? 2 : 1;
      const rel = await inProcess('release', ...flags, '--query', query, ...by, '--scale', scale, '--ledger', ledger, '--json');
      expect(rel.status, rel.stderr).toBe(0);
      // The ledger records the joint level the what-if said (the same accountant, the same scales).
      expect(JSON.parse(rel.stdout).ledger.level).toBe(w.level);
    }
    expect(fitted).toBe(2);
    expect(recorded).toBe(4);
    // Over the budget: the release is refused naming the level the whole batch (both groups) brings, the what-if's.
    const over = JSON.parse(
      (
        await inProcess(
          'account',
          '--ledger',
          ledger,
          ...flags,
          '--query',
          'count:age > 60',
          '--group-by',
          'sex',
          '--release',
          'mechanism=laplace,scale=0.5',
          '--json',
        )
      ).stdout,
    );
    expect(over.fits).toBe(false);
    const refused = await inProcess('release', ...flags, '--query', 'count:age > 60', '--group-by', 'sex', '--scale', '0.5', '--ledger', ledger);
    expect(refused.status).toBe(2);
    const named = Number(/would bring the joint level to ([\d.]+)/.exec(refused.stderr)?.[1]);
    expect(Math.abs(named / over.level - 1), refused.stderr).toBeLessThan(1e-5);
    // The plan says the error bar its scale gives (Laplace: b·log 20 at 95%).
    const plan = JSON.parse((await inProcess('account', '--ledger', ledger, ...flags, '--query', 'mean:trestbps', '--next', 'laplace', '--json')).stdout);
    expect(plan.confidence).toBe(0.95);
    expect(Math.abs(plan.halfWidth / (plan.statisticScale * Math.log(20)) - 1)).toBeLessThan(1e-12);
    const text = await inProcess('account', '--ledger', ledger, ...flags, '--query', 'mean:trestbps', '--release', 'mechanism=laplace,scale=0.001');
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(
      /the joint level would be [\d.]+ \(α = \d\): over the ledger's budget: a release at these scales would be refused .* Nothing was recorded\./,
    );
    const bad = await inProcess('account', '--ledger', ledger, ...flags, '--query', 'mean:chol', '--release', 'mechanism=laplace,scale=1,columns=chol');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^error: --release: takes mechanism=M,scale=S for a statistic/);
    const budget = await inProcess('account', '--ledger', ledger, ...flags, '--query', 'mean:chol', '--release', 'mechanism=laplace,scale=1', '--epsilon', '1');
    expect(budget.status).toBe(2);
    expect(budget.stderr).toMatch(/^error: --epsilon: .*with a source ledger/);
  }, 180_000);

  it('private groups: account --group-private plans the common scale and gives the what-if level the ledger then records', async () => {
    const ledger = join(dir, 'private-plan.ledger');
    const flags = ['--data', HEART_PATH, '--secret-column', 'fbs'];
    expect((await inProcess('ledger', 'init', '--ledger', ledger, ...flags, '--alpha', '2', '--epsilon', '1')).status).toBe(0);
    expect((await inProcess('release', ...flags, '--query', 'mean:oldpeak', '--scale', '0.01', '--ledger', ledger)).status).toBe(0);
    const per = ['--query', 'sum:oldpeak', '--group-by', 'sex', '--group-private'];
    const plan = await inProcess('account', '--ledger', ledger, ...flags, ...per, '--next', 'laplace', '--json');
    expect(plan.status, plan.stderr).toBe(0);
    const p = JSON.parse(plan.stdout);
    expect(p.groupPrivate).toBe(true);
    expect(p.groups.map((g: { group: string }) => g.group)).toEqual(['0.0', '1.0']);
    // Public groups keep the adversaries of the earlier release, who do not know the group (private
    // groups' only ones) beside those who do: their plan is never below the private one.
    const publicPlan = JSON.parse((await inProcess('account', '--ledger', ledger, ...flags, ...per.slice(0, 4), '--next', 'laplace', '--json')).stdout);
    expect(p.statisticScale).toBeLessThanOrEqual(publicPlan.statisticScale);
    // At the planned scale the what-if fits and 1% below it does not; the release at it records the what-if's level.
    const whatIf = async (scale: number) =>
      JSON.parse((await inProcess('account', '--ledger', ledger, ...flags, ...per, '--release', `mechanism=laplace,scale=${scale}`, '--json')).stdout);
    const at = await whatIf(p.statisticScale);
    expect(at.fits).toBe(true);
    expect(at.groupPrivate).toBe(true);
    expect((await whatIf(p.statisticScale * 0.99)).fits).toBe(false);
    const rel = await inProcess('release', ...flags, ...per, '--scale', String(p.statisticScale), '--ledger', ledger, '--json');
    expect(rel.status, rel.stderr).toBe(0);
    expect(JSON.parse(rel.stdout).ledger.level).toBe(at.level);
    // Without --group-by, or without a source ledger's statistic, the flag is refused by name.
    const alone = await inProcess('account', '--ledger', ledger, ...flags, '--query', 'sum:oldpeak', '--group-private', '--next', 'laplace');
    expect(alone.status).toBe(2);
    expect(alone.stderr).toMatch(/^error: --group-private: goes with a statistic of a table/);
    const laws = await inProcess('account', '--scenario', 'heart', '--release', 'mechanism=laplace,scale=1', '--group-private');
    expect(laws.status).toBe(2);
    expect(laws.stderr).toMatch(/^error: --group-private: goes with a source ledger's plan or what-if/);
  });

  it('opens a source ledger, records a per-group mean and refuses a hand-typed value', async () => {
    const ledger = join(dir, 'cli.ledger');
    const misspelt = await inProcess(
      'ledger',
      'init',
      '--ledger',
      `${ledger}.x`,
      '--data',
      HEART_PATH,
      '--secret-column',
      'fbss',
      '--alpha',
      '2',
      '--epsilon',
      '3',
    );
    expect(misspelt.status).toBe(2);
    expect(misspelt.stderr).toMatch(/unknown column 'fbss'/);
    const init = await inProcess('ledger', 'init', '--ledger', ledger, ...flags, '--alpha', '2', '--epsilon', '3');
    expect(init.status).toBe(0);
    expect(init.stdout).toMatch(/assumes: each release recorded here is a statistic of this table/);
    const rel = await inProcess('release', ...flags, '--query', 'mean:chol', '--group-by', 'sex', '--epsilon', '1', '--ledger', ledger, '--json');
    expect(rel.status).toBe(0);
    const j = JSON.parse(rel.stdout);
    expect(j.ledger.releases).toEqual([1, 2]);
    expect(j.ledger.level).toBeLessThanOrEqual(3);
    // account plans the next statistic's scale; release takes it as given, in the statistic's own units.
    const plan = await inProcess('account', '--ledger', ledger, ...flags, '--query', 'mean:thalach', '--next', 'laplace', '--json');
    expect(plan.status, plan.stderr).toBe(0);
    const p = JSON.parse(plan.stdout);
    expect(p.units).toBe(303);
    expect(p.level).toBeLessThanOrEqual(3);
    const scale = String(Number(decimalUp(p.statisticScale, 6)));
    const given = await inProcess('release', ...flags, '--query', 'mean:thalach', '--scale', scale, '--ledger', ledger, '--json');
    expect(given.status, given.stderr).toBe(0);
    const g = JSON.parse(given.stdout);
    expect(g.ledger.releases).toEqual([3]);
    expect(g.ledger.level).toBeLessThanOrEqual(3);
    const unchecked = await inProcess('release', ...flags, '--query', 'mean:thalach', '--scale', '0.5');
    expect(unchecked.stderr).toMatch(/--scale: goes with --ledger/);
    const typed = await inProcess('release', '--value', '240', '--scenario', 'heart', '--epsilon', '1', '--ledger', ledger);
    expect(typed.status).toBe(2);
    expect(typed.stderr).toMatch(/is a source ledger .*never a hand-typed --value/);
    const show = await inProcess('ledger', 'show', '--ledger', ledger, ...flags);
    expect(show.status).toBe(0);
    expect(show.stdout).toMatch(/mean:chol \| sex = 0\.0/);
    // Means are recorded at one unit's scale (n times the statistic's). An adversary who knows no one's
    // sex sees three coordinates (each sex's mean of chol, and thalach's): bounded by the chain bound.
    expect(show.stdout).toMatch(/\(scale: on one unit's contribution, as accounted; a mean's or share's own scale is it divided by its n\)/);
    expect(show.stdout).toMatch(/^2 +[\d.]+ +[\d.]+ +chained$/m);
    expect(show.stdout).toMatch(/where 'how' is not exact/);
    // account on the source ledger without a statistic gives the joint level of what is recorded, as show does.
    const joint = await inProcess('account', '--ledger', ledger, ...flags, '--json');
    expect(joint.status, joint.stderr).toBe(0);
    expect(JSON.parse(joint.stdout).current).toEqual(JSON.parse((await inProcess('ledger', 'show', '--ledger', ledger, ...flags, '--json')).stdout).current);
    const blind = await inProcess('account', '--ledger', ledger, ...flags, '--next', 'laplace');
    expect(blind.status).toBe(2);
    expect(blind.stderr).toMatch(/^error: --query: is required with --next on a source ledger/);
    // A count of every unit is n, public: neither planned (before: a scale of 10⁻³⁰⁰) nor recorded, and said why.
    for (const args of [
      ['account', '--ledger', ledger, ...flags, '--query', 'count', '--next', 'laplace'],
      ['release', ...flags, '--query', 'share', '--ledger', ledger],
      ['release', ...flags, '--query', 'count', '--group-by', 'sex', '--ledger', ledger],
    ]) {
      const r = await inProcess(...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^error: --query: (count|share) without a predicate is (n, the number of units|1)/);
    }
    const check = await inProcess('ledger', 'check', '--ledger', ledger, ...flags);
    expect(check.stdout).toMatch(/verdict: pass/);
    const other = await inProcess('release', '--data', HEART_PATH, '--secret-column', 'sex', '--query', 'mean:chol', '--epsilon', '1', '--ledger', ledger);
    expect(other.status).toBe(2);
    expect(other.stderr).toMatch(/was opened for another source/);
    // Without the secret the source cannot be named: the missing flag is said, not "another source".
    const bare = await inProcess('ledger', 'show', '--ledger', ledger, '--data', HEART_PATH);
    expect(bare.status).toBe(2);
    expect(bare.stderr).toMatch(/^error: --secret-column: give --secret-column COL or --secret NAME=PREDICATE/);
    expect((await ledgerStore(ledger).read()).rows).toHaveLength(3);
  });

  it('private groups go into a source ledger: recorded as private (the group column stays unknown), accounted on the private vector law, refused with the common scale that fits', async () => {
    const ledger = join(dir, 'private.ledger');
    expect((await inProcess('ledger', 'init', '--ledger', ledger, ...flags, '--alpha', '2', '--epsilon', '2')).status).toBe(0);
    const args = [...flags, '--query', 'sum:chol', '--group-by', 'sex', '--group-private', '--ledger', ledger];
    const first = await inProcess('release', ...args, '--epsilon', '1', '--json');
    expect(first.status, first.stderr).toBe(0);
    const j = JSON.parse(first.stdout);
    expect(j.ledger.releases).toEqual([1, 2]);
    // The level is the private vector law's account at the released scale (no group known to the adversary).
    const t = await privateGroupsStatistic({ ...HEART.source }, { statistic: { kind: 'sum', column: 'chol' }, secretColumn: 'fbs', groupBy: 'sex' });
    const scale = j.releases[0].scale as number;
    const acc = account(
      t.scenario,
      [laplace(scale)].map((r) => ({ mechanism: r.mechanism, scale: r.scale })),
      { alphas: [2] },
    );
    expect(j.ledger.level / acc.rows[0].divergence).toBeCloseTo(1, 6);
    const rows = (await ledgerStore(ledger).read()).rows;
    expect(rows.map((r) => JSON.parse(r.query))).toEqual([
      { statistic: 'sum:chol', groupBy: 'sex', group: '0.0', private: true },
      { statistic: 'sum:chol', groupBy: 'sex', group: '1.0', private: true },
    ]);
    const refused = await inProcess('release', ...args, '--epsilon', '3');
    expect(refused.status).toBe(2);
    const named = /--scale ([\d.e+-]+) --ledger/.exec(refused.stderr)![1];
    const at = await inProcess('release', ...args, '--scale', named, '--json');
    expect(at.status, at.stderr).toBe(0);
    expect(JSON.parse(at.stdout).ledger.level).toBeLessThanOrEqual(2);
    const check = await inProcess('ledger', 'check', '--ledger', ledger, ...flags);
    expect(check.stdout).toMatch(/verdict: pass/);
  });

  it('private groups calibrated at the whole budget are recorded: the ledger accounts them within ε (Laplace and Gaussian, α = 1.5 and 2)', async () => {
    for (const [mechanism, alpha] of [
      ['laplace', '2'],
      ['laplace', '1.5'],
      ['gaussian', '2'],
    ]) {
      const ledger = join(dir, `whole-${mechanism}-${alpha}.ledger`);
      expect((await inProcess('ledger', 'init', '--ledger', ledger, ...flags, '--alpha', alpha, '--epsilon', '1')).status).toBe(0);
      const r = await inProcess(
        'release',
        ...flags,
        '--query',
        'sum:oldpeak',
        '--group-by',
        'sex',
        '--group-private',
        '--mechanism',
        mechanism,
        '--alpha',
        alpha,
        '--epsilon',
        '1',
        '--ledger',
        ledger,
        '--json',
      );
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).ledger.level).toBeLessThanOrEqual(1);
    }
  });

  it("a refused mean names the scale that fits in the mean's own units (÷ n): released at it, it fits; 1% less is refused", async () => {
    const ledger = join(dir, 'mean.ledger');
    expect((await inProcess('ledger', 'init', '--ledger', ledger, ...flags, '--alpha', '2', '--epsilon', '1')).status).toBe(0);
    const args = [...flags, '--query', 'mean:chol', '--ledger', ledger];
    expect((await inProcess('release', ...args, '--epsilon', '0.9')).status).toBe(0);
    const refused = await inProcess('release', ...args, '--epsilon', '0.9');
    expect(refused.status).toBe(2);
    const contribution = Number(/still fits is ([\d.e+-]+) on one unit's contribution/.exec(refused.stderr)![1]);
    const named = /In the statistic's units: --scale ([\d.e+-]+) --ledger/.exec(refused.stderr)![1];
    expect(Number(named)).toBeGreaterThanOrEqual(contribution / 303);
    expect(Number(named)).toBeLessThan((contribution / 303) * (1 + 1e-9));
    expect((await inProcess('release', ...args, '--scale', String(Number(named) * 0.99))).status).toBe(2);
    const at = await inProcess('release', ...args, '--scale', named, '--json');
    expect(at.status, at.stderr).toBe(0);
    expect(JSON.parse(at.stdout).ledger.level).toBeLessThanOrEqual(1);
  });

  it('a refused per-group release names the one common scale that fits; account --next --group-by names it too, and 1% less is refused', async () => {
    const ledger = join(dir, 'groups.ledger');
    expect((await inProcess('ledger', 'init', '--ledger', ledger, ...flags, '--alpha', '2', '--epsilon', '1')).status).toBe(0);
    const first = await inProcess('release', ...flags, '--query', 'mean:chol', '--group-by', 'sex', '--epsilon', '0.8', '--ledger', ledger);
    expect(first.status).toBe(0);
    const refused = await inProcess('release', ...flags, '--query', 'mean:chol', '--group-by', 'sex', '--epsilon', '0.5', '--ledger', ledger);
    expect(refused.status).toBe(2);
    const named = Number(/Every group at one scale that fits, in the statistic's units: --scale ([\d.e+-]+)/.exec(refused.stderr)![1]);
    const plan = JSON.parse(
      (await inProcess('account', '--ledger', ledger, ...flags, '--query', 'mean:chol', '--group-by', 'sex', '--next', 'laplace', '--json')).stdout,
    );
    expect(plan.groups.map((g: { group: string }) => g.group)).toEqual(['0.0', '1.0']);
    expect(Number(decimalUp(plan.statisticScale, 10))).toBe(named);
    const less = await inProcess('release', ...flags, '--query', 'mean:chol', '--group-by', 'sex', '--scale', String(named * 0.99), '--ledger', ledger);
    expect(less.status).toBe(2);
    const at = await inProcess('release', ...flags, '--query', 'mean:chol', '--group-by', 'sex', '--scale', String(named), '--ledger', ledger, '--json');
    expect(at.status, at.stderr).toBe(0);
    expect(JSON.parse(at.stdout).ledger.level).toBeLessThanOrEqual(1);
    expect((await ledgerStore(ledger).read()).rows).toHaveLength(4);
  });
});
