// A statistic's bootstrap class (`--prior bootstrap:N`, docs/math.md §20): draw i reweights every
// unit by a Poisson(1) weight keyed by (seed, i, unit), in the engine's SQL and in a text table's
// tally alike, so every statistic of a table — and a source ledger's vector of them — sees one class.
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { statisticsScenario } from '../src/api/jointStatistics.js';
import { recordStatistics, sourceIdentity, type StatisticsSource } from '../src/api/sourceLedger.js';
import { statisticFromTable } from '../src/api/statistic.js';
import { statisticFromText } from '../src/api/statisticLaws.js';
import type { Discrete } from '../src/distribution/discrete.js';
import { atomsOf, coord } from '../src/distribution/points.js';
import { initLedger } from '../src/ledger/ledger.js';
import { ledgerStore } from '../src/ledger/store.js';
import { parseStatistic, type Statistic } from '../src/sources/statistic.js';
import { checkDrawnSize, MAX_DRAWN_ROWS, md5Hex, unitWeights } from '../src/sources/unitWeights.js';
import { uciQuirks } from '../src/uci/formats.js';
import { runInProcess as inProcess } from './inProcess.js';

const dir = mkdtempSync(join(tmpdir(), 'pufferfish-bootstrap-'));
const HEART_PATH = 'test/fixtures/uci/heart-disease/processed.cleveland.data.gz';
const HEART: StatisticsSource = { source: { kind: 'csv', location: HEART_PATH, ...uciQuirks(HEART_PATH) }, secretColumn: 'fbs' };

/** Households (hh) of one to three members, each with a secret s, a value x and a flag f. */
const ROWS: [string, string, number, number][] = [
  ['1', 'a', 3, 0],
  ['1', 'b', 5, 1],
  ['2', 'a', 1, 0],
  ['3', 'b', 7, 1],
  ['3', 'b', 2, 0],
  ['3', 'a', 4, 1],
  ['4', 'a', 2, 0],
  ['5', 'b', 6, 1],
  ['6', 'a', 1, 1],
  ['7', 'b', 8, 0],
  ['7', 'a', 2, 0],
  ['8', 'b', 5, 1],
];
const TEXT = { columns: ['hh', 's', 'x', 'f'], rows: ROWS.map((r) => r.map(String)) };
const CSV = join(dir, 'households.csv');
writeFileSync(CSV, `hh,s,x,f\n${ROWS.map((r) => r.join(',')).join('\n')}\n`);

const lawOf = (d: Discrete) => Array.from(d.values).map((v, i) => [v, Number(d.numerators[i]) / Number(d.denominator)]);
const lawsOf = (t: Awaited<ReturnType<typeof statisticFromTable>>) =>
  t.groups[0].scenario.priors.map((p) => [p.name, Object.entries(p.conditionals).map(([s, d]) => [s, lawOf(d as Discrete)])]);

/** Draw i's law of one unit's contribution per secret, computed here from the rows and `unitWeights` alone. */
function expectedDraw(unit: boolean, draws: number, seed: number, draw: number, contribution: (rows: typeof ROWS) => number) {
  const bySecret = new Map<string, Map<number, number>>();
  ROWS.forEach((r, k) => {
    const members = unit ? ROWS.filter((x) => x[0] === r[0]) : [r];
    const w = unitWeights(unit ? r[0] : String(k + 1), { draws, seed })[draw - 1];
    if (w === 0) return;
    const m = bySecret.get(r[1]) ?? new Map<number, number>();
    bySecret.set(r[1], m);
    const c = contribution(members);
    m.set(c, (m.get(c) ?? 0) + w);
  });
  return [...bySecret]
    .filter(([, m]) => m.size > 0)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([s, m]) => {
      const total = [...m.values()].reduce((a, b) => a + b, 0);
      return [s, [...m].sort(([a], [b]) => a - b).map(([v, c]) => [v, c / total])];
    });
}

describe('the units’ Poisson weights', () => {
  it('md5 agrees with node:crypto on texts across block boundaries and beyond ASCII', () => {
    for (const t of ['', 'a', '7:12:household 3', 'é漢字🙂', 'x'.repeat(55), 'x'.repeat(56), 'x'.repeat(64), 'y'.repeat(1000)])
      expect(md5Hex(t)).toBe(createHash('md5').update(t).digest('hex'));
  });

  it('weights follow Poisson(1): the frequency of each of 0…5 within 5 standard errors over 40,000 units', () => {
    const n = 40_000;
    const freq = new Array(18).fill(0);
    for (let u = 0; u < n; u++) freq[unitWeights(`unit ${u}`, { draws: 1, seed: 11 })[0]]++;
    let fact = 1;
    for (let k = 0; k <= 5; k++) {
      if (k > 0) fact *= k;
      const p = Math.exp(-1) / fact;
      expect(Math.abs(freq[k] - n * p)).toBeLessThan(5 * Math.sqrt(n * p * (1 - p)));
    }
  });
});

describe('a statistic’s bootstrap class', () => {
  for (const unit of [true, false]) {
    it(`the engine's draws are the units reweighted as computed independently, and the text table's are the same${unit ? ' (--unit hh)' : ' (rows as units)'}`, async () => {
      const st: Statistic = { ...parseStatistic('sum:x')!, ...(unit ? { unit: 'hh' } : {}) };
      const o = { statistic: st, secretColumn: 's', prior: 'bootstrap:6', seed: 4 };
      const engine = await statisticFromTable(CSV, o);
      const text = statisticFromText(TEXT, { ...o, name: engine.groups[0].scenario.name });
      expect(lawsOf(text)).toEqual(lawsOf(engine));
      const priors = engine.groups[0].scenario.priors;
      expect(priors[0].name).toBe('empirical');
      const sumX = (rows: typeof ROWS) => rows.reduce((a, r) => a + r[2], 0);
      for (const p of priors.slice(1)) {
        const draw = Number(/^bootstrap#(\d+)$/.exec(p.name)![1]);
        expect(Object.entries(p.conditionals).map(([s, d]) => [s, lawOf(d as Discrete)])).toEqual(expectedDraw(unit, 6, 4, draw, sumX));
      }
      // Draws differ from the table and from each other (the seed is used).
      expect(new Set(lawsOf(engine).map(([, laws]) => JSON.stringify(laws))).size).toBeGreaterThan(3);
    });
  }

  it('a table with columns named like the query’s own (pufferfish_id, pufferfish_draw, pufferfish_h) gets the same draws', async () => {
    const clash = join(dir, 'clash.csv');
    writeFileSync(clash, `hh,s,x,f,pufferfish_id,pufferfish_draw,pufferfish_h\n${ROWS.map((r) => [...r, 7, 0, 0].join(',')).join('\n')}\n`);
    for (const unit of [true, false]) {
      const st: Statistic = { ...parseStatistic('sum:x')!, ...(unit ? { unit: 'hh' } : {}) };
      const [plain, clashing] = [
        await statisticFromTable(CSV, { statistic: st, secretColumn: 's', prior: 'bootstrap:6', seed: 4 }),
        await statisticFromTable(clash, { statistic: st, secretColumn: 's', prior: 'bootstrap:6', seed: 4 }),
      ];
      expect(lawsOf(clashing)).toEqual(lawsOf(plain));
    }
    const id = async (location: string) =>
      (await sourceIdentity({ source: { kind: 'csv', location }, secretColumn: 's', prior: { draws: 3, seed: 1 } })).identity;
    expect(await id(clash)).toMatch(/^source:sha256:/);
  });

  it('a source ledger’s joint law under draw i projects onto each statistic’s own law under draw i', async () => {
    const src: StatisticsSource = { source: { kind: 'csv', location: CSV }, secretColumn: 's', unit: 'hh', prior: { draws: 5, seed: 9 } };
    const { identity } = await sourceIdentity(src);
    const joint = await statisticsScenario(src, [{ query: 'sum:x' }, { query: 'count:f = 1' }], identity);
    for (const [k, query] of ['sum:x', 'count:f = 1'].entries()) {
      const own = await statisticFromTable(CSV, { statistic: { ...parseStatistic(query)!, unit: 'hh' }, secretColumn: 's', prior: 'bootstrap:5', seed: 9 });
      const ownPriors = own.groups[0].scenario.priors;
      expect(joint.priors.map((p) => p.name)).toEqual(ownPriors.map((p) => p.name));
      joint.priors.forEach((p, i) => {
        for (const [s, m] of Object.entries(p.conditionals)) {
          const marginal = new Map<number, number>();
          for (let a = 0; a < atomsOf(m); a++) marginal.set(coord(m, a, k), (marginal.get(coord(m, a, k)) ?? 0) + m.masses[a]);
          const mine = lawOf(ownPriors[i].conditionals[s] as Discrete);
          expect(mine.map(([v]) => v)).toEqual([...marginal.keys()].sort((x, y) => x - y));
          for (const [v, q] of mine) expect(marginal.get(v)!).toBeCloseTo(q, 14);
        }
      });
    }
  });

  it('without a unit the draws key rows by position: a source ledger under the class binds the rows’ order (the empirical one does not)', async () => {
    const body = ROWS.map((r) => r.join(','));
    const [p1, p2] = [join(dir, 'order1.csv'), join(dir, 'order2.csv')];
    writeFileSync(p1, `hh,s,x,f\n${body.join('\n')}\n`);
    writeFileSync(p2, `hh,s,x,f\n${[...body].reverse().join('\n')}\n`);
    const id = async (location: string, prior?: { draws: number; seed: number }, unit?: string) =>
      (await sourceIdentity({ source: { kind: 'csv', location }, secretColumn: 's', ...(prior ? { prior } : {}), ...(unit ? { unit } : {}) })).identity;
    const cls = { draws: 3, seed: 1 };
    // The same path rewritten: an identity is of the rows there.
    const copy = join(dir, 'order.csv');
    writeFileSync(copy, `hh,s,x,f\n${body.join('\n')}\n`);
    const [empirical, ordered, unitKeyed] = [await id(copy), await id(copy, cls), await id(copy, cls, 'hh')];
    writeFileSync(copy, `hh,s,x,f\n${[...body].reverse().join('\n')}\n`);
    expect(await id(copy)).toBe(empirical);
    expect(await id(copy, cls)).not.toBe(ordered);
    expect(await id(copy, cls, 'hh')).toBe(unitKeyed);
    // And the draws themselves differ between the two orders (the reason it is bound).
    const laws = async (location: string) =>
      lawsOf(await statisticFromTable(location, { statistic: parseStatistic('sum:x')!, secretColumn: 's', prior: 'bootstrap:3', seed: 1 }));
    expect(await laws(p1)).not.toEqual(await laws(p2));
  });

  it('a class too large to build for the adversaries who know a group is refused, never dropped (their level would fall)', async () => {
    // Two groups with both secrets and 250 groups of one row: 252 public values × 81 priors pass the cap.
    const rows = ['g,s,x'];
    for (let k = 0; k < 20; k++) rows.push(`0,a,${k % 11}`, `0,b,${5 + (k % 11)}`, `1,a,${k % 7}`, `1,b,${k % 9}`);
    for (let k = 0; k < 250; k++) rows.push(`${k + 2},${k % 2 ? 'a' : 'b'},${k % 13}`);
    const location = join(dir, 'many-groups.csv');
    writeFileSync(location, `${rows.join('\n')}\n`);
    const recorded = [{ query: 'sum:x' }, { query: 'sum:x', groupBy: 'g', group: '0' }];
    const src = (draws: number): StatisticsSource => ({ source: { kind: 'csv', location }, secretColumn: 's', prior: { draws, seed: 0 } });
    // Below the cap both parts of the class are there (adversaries who know g and who do not).
    const small = await statisticsScenario(src(5), recorded, (await sourceIdentity(src(5))).identity);
    expect(small.priors.some((p) => p.name.includes('g="0"'))).toBe(true);
    await expect(statisticsScenario(src(80), recorded, (await sourceIdentity(src(80))).identity)).rejects.toThrow(/would build \d+ priors/);
  });

  it('a class whose draws would hold more rows than fit in memory is refused, naming the most draws that fit, before the draws are read (CLI and page)', async () => {
    // 2 secrets × 5 000 distinct values: 10 000 rows of draw 0, so MAX_DRAWN_ROWS / 10 000 draws fit;
    // rows without a secret are left out of the laws, and of the count (the engine counted them before).
    const rows = ['s,x'];
    for (let k = 0; k < 5000; k++) rows.push(`a,${k}`, `b,${k + 0.5}`, `,${k + 0.25}`);
    const location = join(dir, 'many-values.csv');
    writeFileSync(location, `${rows.join('\n')}\n`);
    const fit = Math.floor(MAX_DRAWN_ROWS / 10_000);
    const o = (draws: number) => ({ statistic: parseStatistic('sum:x')!, secretColumn: 's', prior: `bootstrap:${draws}` });
    const refusal = { path: 'prior', message: expect.stringMatching(new RegExp(`the table's 10000 distinct .*at most bootstrap:${fit},`)) };
    await expect(statisticFromTable(location, o(fit + 1))).rejects.toMatchObject(refusal);
    const text = { columns: ['s', 'x'], rows: rows.slice(1).map((r) => r.split(',')) };
    expect(text.rows.filter((r) => r[0] === '')).toHaveLength(5000);
    expect(() => statisticFromText(text, { ...o(fit + 1), name: 't' })).toThrow(expect.objectContaining(refusal));
    // The named count fits exactly: the bound is on draws × distinct rows.
    expect(() => checkDrawnSize(10_000, fit)).not.toThrow();
    const cli = await inProcess('calibrate', '--data', location, '--secret-column', 's', '--query', 'sum:x', '--prior', `bootstrap:${fit + 1}`);
    expect(cli.status).toBe(2);
    expect(cli.stderr).toMatch(new RegExp(`--prior: .*take at most bootstrap:${fit},`));
  });

  it('a source ledger whose class cannot hold a statistic says its class is fixed, and says so at init', async () => {
    const rows = ['s,x'];
    for (let k = 0; k < 1000; k++) rows.push(`a,${k}`, `b,${k + 0.5}`);
    const location = join(dir, 'ledger-values.csv');
    writeFileSync(location, `${rows.join('\n')}\n`);
    const draws = Math.floor(MAX_DRAWN_ROWS / 2000) + 1;
    const ledger = join(dir, 'fixed-class.ledger');
    const base = ['--data', location, '--secret-column', 's', '--prior', `bootstrap:${draws}`];
    const init = await inProcess('ledger', 'init', '--ledger', ledger, ...base, '--alpha', '2', '--epsilon', '1');
    expect(init.status).toBe(0);
    expect(init.stderr).toMatch(
      new RegExp(
        `note: bootstrap:${draws} holds statistics whose joint values take at most ${Math.floor(MAX_DRAWN_ROWS / draws)} distinct rows .* cannot be lowered later`,
      ),
    );
    const r = await inProcess('release', ...base, '--query', 'sum:x', '--scale', '1000', '--ledger', ledger);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: --prior: this ledger's class \\(bootstrap:${draws}\\) cannot hold .* 2000 distinct .* the class is fixed when a ledger is opened \\(one opened with at most bootstrap:${draws - 1} would hold them\\)`,
      ),
    );
  });

  it('a seed where nothing is drawn is refused (never taken and ignored), and a Dirichlet class is refused for private groups by their name', async () => {
    const heart = ['--data', HEART_PATH, '--secret-column', 'fbs', '--alpha', '2', '--epsilon', '1'];
    const seattle = [
      '--data',
      'test/fixtures/weather/seattle-weather.csv.gz',
      '--sequence',
      'weather',
      '--order-by',
      'date',
      '--query',
      'count:rain',
      '--length',
      '30',
      '--alpha',
      '2',
      '--epsilon',
      '1',
    ];
    for (const args of [
      ['calibrate', ...heart, '--query', 'chol'],
      ['calibrate', ...heart, '--query', 'mean:chol'],
      ['calibrate', ...heart, '--query', 'sum:chol', '--group-by', 'sex', '--group-private'],
      ['calibrate', ...seattle],
      ['calibrate', ...seattle, '--window', '10'],
      ['ledger', 'init', '--ledger', join(dir, 'seeded.ledger'), ...heart],
    ]) {
      const r = await inProcess(...args, '--prior', 'empirical', '--seed', '3');
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^error: --seed: .*--prior empirical draws nothing/);
    }
    const groups = await inProcess('calibrate', ...heart, '--query', 'sum:chol', '--group-by', 'sex', '--group-private', '--prior', 'dirichlet:3');
    expect(groups.status).toBe(2);
    expect(groups.stderr).toMatch(/^error: --prior: --group-private takes empirical or bootstrap:N: .* every group/);
  });

  it('the library refuses a seed the CLI refuses (a fraction, a negative number), naming seed, on tables and text tables alike', async () => {
    for (const seed of [1.5, -1]) {
      const o = { statistic: parseStatistic('sum:x')!, secretColumn: 's', prior: 'bootstrap:3', seed };
      await expect(statisticFromTable(CSV, o)).rejects.toMatchObject({ path: 'seed', reason: expect.stringMatching(/^must be a whole number ≥ 0, got/) });
      expect(() => statisticFromText(TEXT, { ...o, name: 't' })).toThrow(/must be a whole number ≥ 0/);
    }
    const cli = await inProcess('calibrate', '--data', HEART_PATH, '--secret-column', 'fbs', '--query', 'mean:chol', '--prior', 'bootstrap:3', '--seed', '1.5');
    expect(cli.stderr).toMatch(/^error: --seed: must be a whole number ≥ 0, got '1\.5'/);
  });

  it('a database table without --unit is refused naming --unit (its rows have no order to key weights by), before connecting', async () => {
    await expect(
      statisticFromTable(
        { kind: 'postgres', location: 'postgres://nobody@127.0.0.1:1/none', table: 't' },
        { statistic: parseStatistic('sum:x')!, secretColumn: 's', prior: 'bootstrap:3' },
      ),
    ).rejects.toMatchObject({ path: '--unit' });
  });
});

describe('a source ledger under a bootstrap class', () => {
  it('records at the class’s level (never below the empirical one), binds the class, and refuses a Dirichlet class', async () => {
    const withClass: StatisticsSource = { ...HEART, prior: { draws: 8, seed: 2 } };
    const level = async (src: StatisticsSource) => {
      const store = ledgerStore(join(dir, `${Math.random().toString(36).slice(2)}.ledger`));
      const { identity, name } = await sourceIdentity(src);
      await initLedger(store, { identity, name }, { alphas: [2], epsilon: 50 });
      const rec = await recordStatistics(store, src, [
        { statistic: { query: 'mean:chol' }, release: { mechanism: 'laplace', scale: 40, count: 1 } },
        { statistic: { query: 'count:age > 60' }, release: { mechanism: 'laplace', scale: 4, count: 1 } },
      ]);
      return rec[1].level.level;
    };
    const [empirical, bootstrap] = [await level(HEART), await level(withClass)];
    expect(bootstrap).toBeGreaterThanOrEqual(empirical);
    expect((await sourceIdentity(withClass)).identity).not.toBe((await sourceIdentity(HEART)).identity);
    expect((await sourceIdentity(withClass)).name).toMatch(/prior class bootstrap:8 \(seed 2\)/);

    const ledger = join(dir, 'class.ledger');
    const base = ['--data', HEART_PATH, '--secret-column', 'fbs'];
    const init = await inProcess('ledger', 'init', '--ledger', ledger, ...base, '--alpha', '2', '--epsilon', '1', '--prior', 'bootstrap:8', '--seed', '2');
    expect(init.status).toBe(0);
    const released = await inProcess('release', ...base, '--query', 'mean:chol', '--ledger', ledger, '--prior', 'bootstrap:8', '--seed', '2', '--json');
    expect(released.status).toBe(0);
    expect(JSON.parse(released.stdout).ledger.releases).toEqual([1]);
    const other = await inProcess('release', ...base, '--query', 'mean:chol', '--scale', '1', '--ledger', ledger);
    expect(other.status).toBe(2);
    expect(other.stderr).toMatch(/--ledger: was opened for another source.*the prior class \(--prior, --seed\)/);
    const check = await inProcess('ledger', 'check', '--ledger', ledger, ...base, '--prior', 'bootstrap:8', '--seed', '2');
    expect(check.status).toBe(0);
    const dirichlet = await inProcess('ledger', 'init', '--ledger', `${ledger}.d`, ...base, '--alpha', '2', '--epsilon', '1', '--prior', 'dirichlet:8');
    expect(dirichlet.status).toBe(2);
    expect(dirichlet.stderr).toMatch(/^error: --prior: a source ledger takes empirical or bootstrap:N/);
  });
});
