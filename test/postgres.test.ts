import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableHistograms } from '../src/sources/histograms.js';
import { UCI_SCENARIOS } from '../src/uci/scenarios.js';
import { uciHistograms } from '../src/uci/files.js';
import { UCI_DIR } from './uci.js';

const url = process.env.PUFFERFISH_PG_URL;
const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const run = (...args: string[]) => promisify(execFile)(process.execPath, [BIN, ...args]);

const skipped = process.env.PUFFERFISH_PG_SKIPPED;
describe.skipIf(!!skipped)(`PostgreSQL source (a real server on loopback)${skipped ? ` — SKIPPED: ${skipped}` : ''}`, () => {
  beforeAll(async () => {
    expect(url, 'the global setup must have started PostgreSQL').toBeTruthy();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query('DROP TABLE IF EXISTS heart; CREATE TABLE heart (oldpeak double precision, fbs double precision, sex double precision, note text)');
    const { readFileSync } = await import('node:fs');
    const lines = readFileSync(join(UCI_DIR, 'heart-disease/processed.cleveland.data'), 'utf8').trim().split('\n');
    for (const l of lines) {
      const f = l.split(',').map((x) => (x === '?' ? null : Number(x)));
      await c.query('INSERT INTO heart VALUES ($1, $2, $3, $4)', [f[9], f[5], f[1], 'x']);
    }
    await c.end();
  });

  it('aggregates in the database: same histograms as the file', async () => {
    const h = await tableHistograms({ kind: 'postgres', location: url!, table: 'heart' }, { query: 'oldpeak', secretColumn: 'fbs' });
    const file = uciHistograms(UCI_SCENARIOS[1], UCI_DIR).conditionals;
    expect(Object.fromEntries(h.groups.get('')!)).toEqual(file);
    expect(h.rows).toBe(303);
  });

  it('a statistic aggregates in the database: the same laws, totals and units as the file', async () => {
    const { statisticFromTable } = await import('../src/api/statistic.js');
    const { uciQuirks } = await import('../src/uci/formats.js');
    const file = { kind: 'csv' as const, location: join(UCI_DIR, 'heart-disease/processed.cleveland.data'), ...uciQuirks('processed.cleveland.data') };
    for (const statistic of [
      { kind: 'mean' as const, column: 'oldpeak' },
      { kind: 'count' as const, predicate: 'oldpeak > 1' },
    ]) {
      const o = { statistic, secretColumn: 'fbs', values: ['0', '1'], groupBy: 'sex' };
      const [db, csv] = await Promise.all([
        statisticFromTable({ kind: 'postgres', location: url!, table: 'heart' }, o),
        statisticFromTable(file, { ...o, values: ['0.0', '1.0'] }),
      ]);
      expect(db.groups.map((g) => [g.total, g.units])).toEqual(csv.groups.map((g) => [g.total, g.units]));
      const laws = (t: typeof db) =>
        t.groups.map((g) => Object.values(g.scenario.priors[0].conditionals).map((d) => Array.from((d as { values: Float64Array }).values)));
      expect(laws(db)).toEqual(laws(csv));
    }
  });

  it('a source ledger on a database table: its fingerprint, the joint law in the database, and a changed row refused', async () => {
    const { sourceIdentity, recordStatistics } = await import('../src/api/sourceLedger.js');
    const { initLedger } = await import('../src/ledger/ledger.js');
    const { ledgerStore } = await import('../src/ledger/store.js');
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const src = { source: { kind: 'postgres' as const, location: url!, table: 'heart' }, secretColumn: 'fbs', values: ['0', '1'] };
    const id = await sourceIdentity(src);
    expect(id.rows).toBe(303);
    expect(id.name).not.toMatch(/@|password/);
    expect((await sourceIdentity(src)).identity).toBe(id.identity);
    const store = ledgerStore(join(mkdtempSync(join(tmpdir(), 'pf-pg-ledger-')), 'heart.ledger'));
    await initLedger(store, { identity: id.identity, name: id.name }, { alphas: [2], epsilon: 5 });
    const laplace = (scale: number) => ({ mechanism: 'laplace' as const, scale, count: 1 });
    await recordStatistics(store, src, [{ statistic: { query: 'mean:oldpeak' }, release: laplace(3) }]);
    const [second] = await recordStatistics(store, src, [{ statistic: { query: 'count:oldpeak > 1', groupBy: 'sex', group: '1' }, release: laplace(2) }]);
    expect(second.level.fits).toBe(true);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query("UPDATE heart SET note = 'y' WHERE ctid = (SELECT min(ctid) FROM heart)");
      await expect(recordStatistics(store, src, [{ statistic: { query: 'mean:oldpeak' }, release: laplace(3) }])).rejects.toThrow(
        /was opened for another source/,
      );
    } finally {
      await c.query("UPDATE heart SET note = 'x'");
      await c.end();
    }
  });

  it('CLI with --table, --sql, predicates and --given equals the built-in heart scenario where it should', async () => {
    const common = ['--alpha', '2', '--epsilon', '1', '--method', 'theorem', '--json'];
    const builtin = JSON.parse((await run('calibrate', '--scenario', 'heart', ...common)).stdout).results[0].scale;
    const t = JSON.parse(
      (await run('calibrate', '--data', url!, '--table', 'heart', '--query', 'oldpeak', '--secret-column', 'fbs', '--values', '0,1', ...common)).stdout,
    );
    expect(t.results[0].scale).toBe(builtin);
    const q = JSON.parse(
      (
        await run(
          'calibrate',
          '--data',
          url!,
          '--sql',
          'SELECT * FROM heart WHERE oldpeak IS NOT NULL',
          '--query',
          'oldpeak',
          '--secret',
          'high=fbs = 1',
          '--secret',
          'normal=fbs = 0',
          ...common,
        )
      ).stdout,
    );
    expect(q.results[0].scale).toBe(builtin);
    const g = JSON.parse(
      (await run('calibrate', '--data', url!, '--table', 'heart', '--query', 'oldpeak', '--secret-column', 'fbs', '--given', 'sex', ...common)).stdout,
    );
    expect(g.results[0].binding.prior).toMatch(/^empirical \| sex=(0|1)$/);
  });

  it('bad input: unknown table, unknown column, rejected predicate', async () => {
    await expect(run('calibrate', '--data', url!, '--table', 'nope', '--query', 'x', '--secret-column', 'y')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^error: --table: cannot read table 'nope'/),
    });
    await expect(run('calibrate', '--data', url!, '--table', 'heart', '--query', 'x', '--secret-column', 'fbs')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^error: --query: unknown column 'x' \(columns: oldpeak, fbs, sex, note\)/),
    });
    await expect(run('calibrate', '--data', url!, '--table', 'heart', '--query', 'note', '--secret-column', 'fbs')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/not numeric/),
    });
    await expect(
      run('calibrate', '--data', url!, '--table', 'heart', '--query', 'oldpeak', '--secret', 'a=fbss = 1', '--secret', 'b=true'),
    ).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/the predicate of 'a' was rejected/) });
  });

  it('never prints a password from the URL, and predicates cannot run a second statement', async () => {
    const u = new URL(url!);
    u.password = 's3cret-pw';
    u.searchParams.set('password', 's3cret-pw');
    const dir = (await import('node:fs')).mkdtempSync(join((await import('node:os')).tmpdir(), 'pf-pg-'));
    const out = join(dir, 'spec.json');
    const r = await run(
      'calibrate',
      '--data',
      u.toString(),
      '--table',
      'heart',
      '--query',
      'oldpeak',
      '--secret-column',
      'fbs',
      '--method',
      'theorem',
      '--json',
      '--spec-out',
      out,
    );
    expect(r.stdout + r.stderr).not.toContain('s3cret-pw');
    expect((await import('node:fs')).readFileSync(out, 'utf8')).not.toContain('s3cret-pw');
    const text = await run('calibrate', '--data', u.toString(), '--table', 'heart', '--query', 'oldpeak', '--secret-column', 'fbs', '--method', 'theorem');
    expect(text.stdout).not.toContain('s3cret-pw');
    await expect(
      run(
        'calibrate',
        '--data',
        url!,
        '--table',
        'heart',
        '--query',
        'oldpeak',
        '--secret',
        'a=1=1); CREATE TABLE pwned (x int); SELECT (1',
        '--secret',
        'b=true',
      ),
    ).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/^error: --secret: the predicate of 'a' must be one SQL expression/) });
    // A server that reads \' as an escaped quote (standard_conforming_strings off) would end a
    // string where the predicate check does not: the session turns it on, and queries take one statement.
    const off = new URL(url!);
    off.searchParams.set('options', '-c standard_conforming_strings=off');
    const sneaky = "'x' <> '\\''); COMMIT; BEGIN READ WRITE; CREATE TABLE pwned2 (); COMMIT; --'";
    // Read as one string comparison now, it may calibrate or fail; it never runs a statement.
    await run(
      'calibrate',
      '--data',
      off.toString(),
      '--table',
      'heart',
      '--query',
      'oldpeak',
      '--secret',
      `a=${sneaky}`,
      '--secret',
      'b=fbs = 1',
      '--method',
      'theorem',
    ).catch(() => {});
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    expect((await c.query("SELECT to_regclass('pwned') AS t")).rows[0].t).toBeNull();
    expect((await c.query("SELECT to_regclass('pwned2') AS t")).rows[0].t).toBeNull();
    await c.end();
  });
});
