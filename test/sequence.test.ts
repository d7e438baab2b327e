import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { SEATTLE_COUNTS, SEATTLE_STATES } from '../src/reproduce/markov.js';
import { transitionCounts } from '../src/sources/sequence.js';
import { InputError } from '../src/errors.js';
import { textTransitionCounts } from '../src/sources/chainCounts.js';
import { parseDelimited } from '../src/sources/csvText.js';
import { runInProcess as inProcess } from './inProcess.js';

// Sequence tables as Markov chains: transition counts from the engines against a count in plain
// TypeScript, the CLI's refusals, seeded prior classes and the spec written from a table.
const FIX = fileURLToPath(new URL('./fixtures/weather/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'pufferfish-sequence-'));
const file = (name: string, text: string) => {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
};

/** The vendored weather files, unpacked and checked against SHA256SUMS. */
function weather(name: string): string {
  const bytes = gunzipSync(readFileSync(join(FIX, `${name}.gz`)));
  const line = readFileSync(join(FIX, 'SHA256SUMS'), 'utf8')
    .split('\n')
    .find((l) => l.trim().endsWith(name));
  expect(line?.split(/\s+/)[0]).toBe(createHash('sha256').update(bytes).digest('hex'));
  return file(name, bytes.toString('utf8'));
}

/** Transition counts in plain TypeScript: rows sorted by date within each location. */
function plainCounts(csv: string, group: boolean) {
  const [head, ...lines] = readFileSync(csv, 'utf8').trim().split('\n');
  const cols = head.split(',');
  const [gi, di, wi] = [cols.indexOf('location'), cols.indexOf('date'), cols.indexOf('weather')];
  const rows = lines.map((l) => l.split(','));
  const by = new Map<string, string[][]>();
  for (const r of rows) {
    const g = group ? r[gi] : 'all';
    by.set(g, [...(by.get(g) ?? []), r]);
  }
  const states = [...new Set(rows.map((r) => r[wi]))].sort();
  const counts = states.map(() => states.map(() => 0));
  for (const seq of by.values()) {
    seq.sort((a, b) => (a[di] < b[di] ? -1 : 1));
    for (let t = 1; t < seq.length; t++) counts[states.indexOf(seq[t - 1][wi])][states.indexOf(seq[t][wi])]++;
  }
  return { states, counts, longest: Math.max(...[...by.values()].map((s) => s.length)) };
}

describe('sequence tables: transition counts', () => {
  const both = weather('weather.csv');
  const seattle = weather('seattle-weather.csv');

  it('DuckDB counts equal a plain count, per location pooled, and for one sequence', async () => {
    for (const [csv, groupBy] of [
      [both, 'location'],
      [seattle, undefined],
    ] as const) {
      const t = await transitionCounts({ kind: 'csv', location: csv }, { sequence: 'weather', orderBy: 'date', ...(groupBy ? { groupBy } : {}) });
      const p = plainCounts(csv, !!groupBy);
      expect(t.states).toEqual(p.states);
      expect(t.counts).toEqual(p.counts);
      expect(t.longest).toBe(p.longest);
      expect(t.dropped).toBe(0);
      // The page's own count of the same text (no engine) is the engine's, record for record.
      const text = parseDelimited(readFileSync(csv, 'utf8'));
      expect(textTransitionCounts(text, { sequence: 'weather', orderBy: 'date', ...(groupBy ? { groupBy } : {}) })).toEqual(t);
    }
  });

  it("the page's count refuses what the engine refuses, naming the field, and counts what it drops", async () => {
    const table = (csv: string) => parseDelimited(csv);
    const q = { sequence: 's', orderBy: 't', groupBy: 'g' };
    const refusal = (csv: string) => {
      try {
        textTransitionCounts(table(csv), q);
      } catch (e) {
        return e instanceof InputError ? e.message : String(e);
      }
      return 'accepted';
    };
    for (const csv of ['g,t,s\nx,1,a\nx,1,b\ny,1,a\ny,2,b\n', 'g,t,s\nx,1,a\ny,1,a\ny,2,b\n', 'g,t,s\nx,1,a\nx,2,a\n']) {
      const f = file(`refuse-${csv.length}.csv`, csv);
      let engine = 'accepted';
      await transitionCounts({ kind: 'csv', location: f }, q).catch((e) => {
        engine = e.message;
      });
      expect(refusal(csv)).toBe(engine);
      expect(engine).not.toBe('accepted');
    }
    // Numeric order values sort as numbers (10 after 9); a missing state is dropped, counted, and
    // breaks the sequence there: no transition b → a across it. DuckDB counts the same.
    const broken = 'g,t,s\nx,9,a\nx,10,b\nx,11,\nx,12,a\nx,13,b\n';
    const t = textTransitionCounts(table(broken), q);
    expect(t.counts).toEqual([
      [0, 2],
      [0, 0],
    ]);
    expect(t.dropped).toBe(1);
    expect(await transitionCounts({ kind: 'csv', location: file('broken.csv', broken) }, q)).toEqual(t);
    // ISO times in either spelling are one instant each: T and space, with or without seconds.
    const mixed = 'g,t,s\nx,2024-01-01T08:00,a\nx,2024-01-01 09:00,b\nx,2024-01-01T10:00:00,a\n';
    expect(textTransitionCounts(table(mixed), q).counts).toEqual([
      [0, 1],
      [1, 0],
    ]);
    expect(await transitionCounts({ kind: 'csv', location: file('mixed.csv', mixed) }, q)).toEqual(textTransitionCounts(table(mixed), q));
    expect(() => textTransitionCounts(table('g,t,s\nx,2024-01-01 09:00,a\nx,2024-01-01T09:00:00,b\n'), q)).toThrow(
      /orderBy: order value 2024-01-01 09:00 appears 2 times/,
    );
    // The page orders numbers and ISO dates only; other order texts are refused by name.
    expect(() => textTransitionCounts(table('g,t,s\nx,1/9/2020,a\nx,1/10/2020,b\n'), q)).toThrow(/orderBy: '1\/9\/2020' is neither a number nor an ISO date/);
  });

  const skipped = process.env.PUFFERFISH_PG_SKIPPED;
  it.skipIf(!!skipped)(`PostgreSQL counts equal DuckDB's${skipped ? ` — SKIPPED: ${skipped}` : ''}`, async () => {
    const url = process.env.PUFFERFISH_PG_URL!;
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query('DROP TABLE IF EXISTS weather; CREATE TABLE weather (location text, date date, weather text)');
    const lines = readFileSync(both, 'utf8').trim().split('\n').slice(1);
    const values = lines.map((l) => l.split(',')).map((f) => `('${f[0]}', '${f[1]}', '${f[6]}')`);
    await c.query(`INSERT INTO weather VALUES ${values.join(',')}`);
    await c.end();
    const fromPg = await transitionCounts({ kind: 'postgres', location: url, table: 'weather' }, { sequence: 'weather', orderBy: 'date', groupBy: 'location' });
    const fromFile = await transitionCounts({ kind: 'csv', location: both }, { sequence: 'weather', orderBy: 'date', groupBy: 'location' });
    expect(fromPg.counts).toEqual(fromFile.counts);
    expect(fromPg.states).toEqual(fromFile.states);
  });

  it('bad sequences: exit 2 naming the flag', async () => {
    const dup = file('dup.csv', 'day,s\n1,a\n2,b\n2,a\n3,b\n');
    const one = file('one.csv', 'g,day,s\nx,1,a\nx,2,b\ny,1,a\n');
    const ok = file('ok.csv', 'day,s\n1,a\n2,b\n3,a\n4,b\n5,b\n6,a\n');
    const cases: [string[], RegExp][] = [
      [['--data', dup, '--sequence', 's', '--order-by', 'day', '--query', 'count:a'], /^error: --order-by: order value 2 appears 2 times/],
      [['--data', one, '--sequence', 's', '--order-by', 'day', '--group-by', 'g', '--query', 'count:a'], /^error: --group-by: sequence 'y' has one row/],
      [['--data', ok, '--sequence', 's', '--order-by', 'day', '--query', 'count:c'], /^error: --query: .*c/],
      [['--data', ok, '--sequence', 's', '--query', 'count:a'], /^error: --order-by: is required with --sequence/],
      [['--data', ok, '--sequence', 's', '--order-by', 'when', '--query', 'count:a'], /^error: --order-by: unknown column 'when'/],
      [['--data', ok, '--sequence', 's', '--order-by', 'day', '--query', 'mean:a'], /^error: --query: must be count:STATE/],
      [['--data', ok, '--sequence', 's', '--order-by', 'day', '--query', 'count:a', '--length', '0'], /^error: --length: must be a whole number/],
      [['--data', ok, '--order-by', 'day', '--query', 'x'], /^error: --order-by: is not taken without --sequence/],
      [['--data', ok, '--sequence', 's', '--order-by', 's', '--query', 'count:a'], /^error: --order-by: names the same column as --sequence \('s'\)/],
      [
        ['--data', one, '--sequence', 's', '--order-by', 'day', '--group-by', 'day', '--query', 'count:a'],
        /^error: --group-by: names the same column as --order-by \('day'\)/,
      ],
      [
        ['--data', one, '--sequence', 's', '--order-by', 'day', '--group-by', 's', '--query', 'count:a'],
        /^error: --group-by: names the same column as --sequence \('s'\)/,
      ],
      [
        ['--data', ok, '--sequence', 's', '--order-by', 'day', '--query', 'count:a', '--secret-column', 's'],
        /^error: --secret-column: is not taken with --sequence/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await inProcess('calibrate', ...args);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    }
  });

  it('--prior bootstrap:N resamples whole sequences: per-sequence counts add up to the pooled ones; seeded, and refused for one sequence', async () => {
    const t = await transitionCounts({ kind: 'csv', location: both }, { sequence: 'weather', orderBy: 'date', groupBy: 'location' });
    expect(t.bySequence).toHaveLength(2);
    const sum = t.counts.map((row, a) => row.map((_, b) => t.bySequence[0][a][b] + t.bySequence[1][a][b]));
    expect(sum).toEqual(t.counts);
    const { chainClass } = await import('../src/sources/chainCounts.js');
    const draws = chainClass(t, { kind: 'bootstrap', draws: 6, seed: 3 });
    expect(draws).toHaveLength(7);
    expect(chainClass(t, { kind: 'bootstrap', draws: 6, seed: 3 })).toEqual(draws);
    for (const d of draws) for (const row of d.transition) expect(Math.abs(row.reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-12);
    // Each resample is two of the two sequences: one of them twice gives that sequence's own chain.
    const own = t.bySequence.map((m) => m.map((row) => (row.some((c) => c > 0) ? row.map((c) => c / row.reduce((a, b) => a + b, 0)) : null)));
    const matchesOne = draws
      .slice(1)
      .some((d) => own.some((o) => o.every((row, a) => row === null || row.every((p, b) => Math.abs(p - d.transition[a][b]) < 1e-15))));
    expect(matchesOne).toBe(true);
    const args = [
      'calibrate',
      '--data',
      seattle,
      '--sequence',
      'weather',
      '--order-by',
      'date',
      '--query',
      'count:rain',
      '--length',
      '10',
      '--prior',
      'bootstrap:3',
    ];
    expect((await inProcess(...args)).stderr).toMatch(/^error: --prior: bootstrap:N resamples whole sequences: give --group-by/);
    const g = await inProcess(
      'calibrate',
      '--data',
      both,
      '--sequence',
      'weather',
      '--order-by',
      'date',
      '--group-by',
      'location',
      '--query',
      'count:rain',
      '--length',
      '10',
      '--alpha',
      'inf',
      '--method',
      'mqm-exact',
      '--prior',
      'bootstrap:3',
      '--json',
    );
    expect(g.status, g.stderr).toBe(0);
    expect(JSON.parse(g.stdout).results[0].scale).toBeGreaterThan(0);
  });

  it('--prior dirichlet:N is seeded and reproducible; --spec-out gives the same scales back', async () => {
    const args = ['calibrate', '--data', seattle, '--sequence', 'weather', '--order-by', 'date', '--query', 'count:rain', '--length', '20', '--alpha', 'inf'];
    const a = await inProcess(...args, '--prior', 'dirichlet:3', '--seed', '7', '--method', 'theorem,mqm-exact', '--json');
    const b = await inProcess(...args, '--prior', 'dirichlet:3', '--seed', '7', '--method', 'theorem,mqm-exact', '--json');
    const c = await inProcess(...args, '--prior', 'dirichlet:3', '--seed', '8', '--method', 'theorem,mqm-exact', '--json');
    expect(a.status, a.stderr).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).not.toBe(c.stdout);
    expect(JSON.parse(a.stdout).source.priors).toBe(4);
    const out = join(dir, 'chain.json');
    const t = await inProcess(...args, '--method', 'exact,mqm-exact', '--spec-out', out, '--json');
    expect(t.status, t.stderr).toBe(0);
    const spec = JSON.parse(readFileSync(out, 'utf8'));
    const p = plainCounts(seattle, false);
    expect(spec.markov.chains[0].transitionCounts).toEqual(p.counts);
    // reproduce --markov embeds these counts for its weather example.
    expect(SEATTLE_COUNTS).toEqual(p.counts);
    expect(SEATTLE_STATES).toEqual(p.states);
    expect(spec.markov.states).toEqual(p.states);
    const s = await inProcess('calibrate', '--spec', out, '--alpha', 'inf', '--method', 'exact,mqm-exact', '--json');
    expect(s.status, s.stderr).toBe(0);
    expect(JSON.parse(s.stdout).results.map((r: { scale: number }) => r.scale)).toEqual(JSON.parse(t.stdout).results.map((r: { scale: number }) => r.scale));
  });

  it("release --out: each sequence's own count, noised at the chain's scale; never a state; unequal lengths refused", async () => {
    const rows = ['g,day,s'];
    for (const g of ['x', 'y', 'z']) for (let d = 1; d <= 8; d++) rows.push(`${g},${d},${(d * g.charCodeAt(0)) % 3 ? 'a' : 'b'}`);
    const csv = file('seqs.csv', `${rows.join('\n')}\n`);
    const out = join(dir, 'counts.csv');
    const r = await inProcess(
      'release',
      '--data',
      csv,
      '--sequence',
      's',
      '--order-by',
      'day',
      '--group-by',
      'g',
      '--query',
      'count:b',
      '--alpha',
      'inf',
      '--method',
      'group-dp',
      '--out',
      out,
      '--json',
    );
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ sequences: 3, scale: 8, method: 'group-dp' });
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('group,count:b');
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(['x', 'y', 'z']);
    for (const l of lines.slice(1)) expect(Number.isFinite(Number(l.split(',')[1]))).toBe(true);
    expect(readFileSync(out, 'utf8')).not.toMatch(/\ba\b|,b\n/);
    const uneven = file('uneven.csv', `${[...rows, 'w,1,a', 'w,2,b'].join('\n')}\n`);
    const u = await inProcess(
      'release',
      '--data',
      uneven,
      '--sequence',
      's',
      '--order-by',
      'day',
      '--group-by',
      'g',
      '--query',
      'count:b',
      '--alpha',
      'inf',
      '--method',
      'group-dp',
      '--out',
      join(dir, 'u.csv'),
    );
    expect(u.status).toBe(2);
    expect(u.stderr).toMatch(/^error: --length: sequence 'w' has 2 steps, but the release is calibrated for chains of 8/);
  });
});

describe('a periodic chain', () => {
  it('MQMApprox says why it does not apply instead of failing the whole source; the others still calibrate', async () => {
    const csv = file('periodic.csv', 'g,day,s\nx,1,a\nx,2,b\nx,3,c\nx,4,a\ny,1,b\ny,2,c\ny,3,a\ny,4,b\n');
    const args = ['calibrate', '--data', csv, '--sequence', 's', '--order-by', 'day', '--group-by', 'g', '--query', 'count:a', '--alpha', 'inf'];
    const best = await inProcess(...args, '--json');
    expect(best.status, best.stderr).toBe(0);
    expect(JSON.parse(best.stdout).results[0].explanation).toMatch(/left out: mqm-approx: .*no time reversal/);
    const approx = await inProcess(...args, '--method', 'mqm-approx');
    expect(approx.status).toBe(2);
    expect(approx.stderr).toMatch(/^error: --method: 'mqm-approx' does not apply: .*no time reversal/);
  });
});

describe('mutual information on a chain', () => {
  it('is bounded per time (I(Y; X_i) ≤ ε for every i); computations that take one secret variable say why not', async () => {
    const seattle = weather('seattle-weather.csv');
    const S = ['--data', seattle, '--sequence', 'weather', '--order-by', 'date', '--query', 'count:rain', '--length', '20'];
    const mi = await inProcess('calibrate', ...S, '--guarantee', 'mi', '--epsilon', '0.01', '--json');
    expect(mi.status, mi.stderr).toBe(0);
    const r = JSON.parse(mi.stdout).results[0];
    expect(r.priors).toHaveLength(20);
    expect(r.priors[0].prior).toBe('estimated: X[1]');
    expect(r.scale).toBeGreaterThan(0);
    expect(r.binding.secrets).toHaveLength(5);
    const one = /takes one secret variable; 'calibrate --guarantee mi' and 'audit' bound I\(Y; X_i\) for every i/;
    expect((await inProcess('calibrate', ...S, '--projection', 'random:1')).stderr).toMatch(one);
    expect((await inProcess('audit', ...S, '--empirical', '--guarantee', 'mi', '--scale', '1', '--samples', '100')).stderr).toMatch(one);
    const a = await inProcess('audit', ...S, '--scale', String(r.scale), '--alpha', 'inf', '--json');
    expect(a.stderr).toBe('');
    const j = JSON.parse(a.stdout);
    expect(j.rows.length).toBeGreaterThan(0);
    expect(j.mi).toHaveLength(20);
    // At the calibrated scale every time's I(Y; X_i) is within the budget, with its error.
    for (const row of j.mi) expect(row.nats - row.error).toBeLessThanOrEqual(0.01);
  });
});
