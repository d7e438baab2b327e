import { execFile, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { budgetLevel } from '../src/account/budget.js';
import { builtinScenario } from '../src/scenarios/builtin.js';
import { lawsDigest } from '../src/ledger/identity.js';
import { runInProcess as inProcess } from './inProcess.js';

const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
const cliAsync = (...args: string[]) =>
  promisify(execFile)(process.execPath, [BIN, ...args]).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
const heart = builtinScenario('heart');
const pgUrl = process.env.PUFFERFISH_PG_URL;
const pgSkipped = process.env.PUFFERFISH_PG_SKIPPED;

/** A fresh ledger location: a file in a new folder, or a named ledger in the test database. */
let names = 0;
const locations = (kind: 'file' | 'postgres') =>
  kind === 'file' ? join(mkdtempSync(join(tmpdir(), 'pf-ledger-')), 'year.ledger') : `${pgUrl}#t${process.pid}_${Date.now() % 1e6}_${names++}`;

const json = (r: { stdout: string }) => JSON.parse(r.stdout);
const FIXTURES = fileURLToPath(new URL('./fixtures', import.meta.url));

/**
 * (In-process runs: the commands' work is the subject; processes racing and killed are below.)
 * A year of monthly Gaussian releases of heart's oldpeak, each calibrated for ε = 0.05 alone,
 * under a ledger budget of ε = 1 at α = 2: the ledger must refuse the month that would break the
 * budget, name a scale that fits, and take the release at that scale.
 */
async function year(kind: 'file' | 'postgres') {
  const L = locations(kind);
  expect((await inProcess('ledger', 'init', '--ledger', L, '--scenario', 'heart', '--alpha', '2', '--epsilon', '1')).status).toBe(0);
  let refusals = 0;
  let fitted = 0;
  let spent = 0;
  // One month's release of heart's oldpeak under the ledger, calibrated (--epsilon) or at a named --scale.
  const monthly = (month: number, ...how: string[]) =>
    inProcess('release', '--scenario', 'heart', '--value', String(1 + month / 10), '--mechanism', 'gaussian', ...how, '--ledger', L, '--json');
  for (let month = 1; month <= 12; month++) {
    const r = await monthly(month, '--epsilon', '0.05');
    if (r.status === 0) {
      expect(json(r).ledger.release).toBe(month - spent);
      continue;
    }
    // Refused: nothing shown, the budget, the level and the scale that fits named.
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^error: --ledger: refused: .* would bring the joint level to [\d.]+ \(D_α at α = 2\), over the ledger's budget ε = 1 at α ∈ \{2\}; /,
    );
    refusals++;
    const named = /still fits is ([\d.e+]+)/.exec(r.stderr);
    if (!named) {
      // Once the fitted releases have brought the level to the budget, nothing more fits.
      expect(r.stderr).toMatch(
        /no scale of gaussian noise fits: with the recorded releases, the certified joint level stays over the budget however large the scale/,
      );
      spent++;
      continue;
    }
    const fit = named[1];
    fitted++;
    // Refused at another too-small scale, or planned by account --next: the same scale is named.
    const again = await monthly(month, '--scale', String(Number(fit) / 10));
    expect(/still fits is ([\d.e+]+)/.exec(again.stderr)?.[1]).toBe(fit);
    const plan = await inProcess('account', '--scenario', 'heart', '--ledger', L, '--next', 'gaussian', '--json');
    expect(plan.status, plan.stderr).toBe(0);
    expect(json(plan).next.scale).toBe(Number(fit));
    const ok = await monthly(month, '--scale', fit);
    expect(ok.status, ok.stderr).toBe(0);
    expect(json(ok).scale).toBe(Number(fit));
    expect(json(ok).ledger.level).toBeLessThanOrEqual(1);
  }
  expect(refusals).toBeGreaterThan(0);
  expect(fitted).toBeGreaterThan(0);
  const check = await inProcess('ledger', 'check', '--ledger', L, '--scenario', 'heart', '--json');
  expect(check.status, check.stdout + check.stderr).toBe(0);
  const c = json(check);
  expect(c.verdict).toBe('pass');
  expect(c.releases).toHaveLength(12 - spent);
  expect(c.releases.every((r: { status: string }) => r.status === 'shown')).toBe(true);
  // The joint level, recomputed from the laws by the accountant, is within the budget, and is
  // larger than the naive sum would suggest for these correlated releases.
  expect(c.current.level).toBeLessThanOrEqual(1);
  const scales = c.releases.map((r: { scale: number }) => r.scale);
  const recomputed = budgetLevel(
    heart,
    scales.map((scale: number) => ({ mechanism: 'gaussian', scale, count: 1 })),
    { alphas: [2], epsilon: 1 },
  );
  expect(recomputed.level).toBe(c.current.level);
  const show = await inProcess('ledger', 'show', '--ledger', L, '--scenario', 'heart');
  expect(show.stdout).toMatch(/joint D_α ≤ +naive Σ/);
  return L;
}

/**
 * 20 processes release at one scale at once against a budget that fits exactly k of them:
 * exactly k succeed, the ledger holds exactly those, and its check (in this process) passes.
 */
async function race(kind: 'file' | 'postgres') {
  const L = locations(kind);
  const scale = 3;
  const level = (n: number) => budgetLevel(heart, [{ mechanism: 'gaussian', scale, count: n }], { alphas: [2], epsilon: 1e9 }).level;
  const k = 7;
  const epsilon = (level(k) + level(k + 1)) / 2;
  expect(level(k)).toBeLessThan(epsilon);
  expect((await inProcess('ledger', 'init', '--ledger', L, '--scenario', 'heart', '--alpha', '2', '--epsilon', String(epsilon))).status).toBe(0);
  const runs = await Promise.all(
    Array.from({ length: 20 }, () =>
      cliAsync('release', '--scenario', 'heart', '--value', '1.4', '--mechanism', 'gaussian', '--ledger', L, '--scale', '3', '--json'),
    ),
  );
  const ok = runs.filter((r) => r.code === 0);
  expect(ok).toHaveLength(k);
  for (const r of runs.filter((x) => x.code !== 0)) expect(r.stderr).toMatch(/refused/);
  const c = json(await inProcess('ledger', 'check', '--ledger', L, '--scenario', 'heart', '--json'));
  expect(c.verdict).toBe('pass');
  expect(c.releases).toHaveLength(k);
  expect(new Set(ok.map((r) => json(r).ledger.release))).toEqual(new Set(Array.from({ length: k }, (_, i) => i + 1)));
}

/**
 * Releases killed (SIGKILL) after a range of delays: every check passes, and shown ⇒ held. (The
 * releases are real processes; the checks of what they left run in this one.)
 */
async function killed(kind: 'file' | 'postgres') {
  const L = locations(kind);
  expect((await inProcess('ledger', 'init', '--ledger', L, '--scenario', 'heart', '--alpha', '2', '--epsilon', '100')).status).toBe(0);
  let held = 0;
  for (const delay of [0, 60, 120, 180, 240, 300, 360, 420, 520, 700]) {
    const child = spawn(process.execPath, [BIN, 'release', '--scenario', 'heart', '--value', '1.4', '--mechanism', 'gaussian', '--ledger', L, '--scale', '2']);
    let out = '';
    child.stdout.on('data', (b) => {
      out += String(b);
    });
    const done = new Promise<void>((resolve) => child.on('close', () => resolve()));
    setTimeout(() => child.kill('SIGKILL'), delay);
    await done;
    const c = json(await inProcess('ledger', 'check', '--ledger', L, '--json'));
    expect(c.verdict, JSON.stringify(c.problems)).toBe('pass');
    // Shown ⇒ held: the values reach stdout only after the release is committed.
    if (/^value\tinterval$/m.test(out)) expect(c.releases.length).toBe(held + 1);
    held = c.releases.length;
  }
  const s = json(await inProcess('ledger', 'show', '--ledger', L, '--json'));
  expect(s.releases.every((r: { status: string }) => r.status === 'shown' || r.status === 'pending')).toBe(true);
}

describe('release ledger (a DuckDB file)', () => {
  it('a 12-release year: the release that would exceed the budget is refused with the scale that fits, and that scale passes', async () => {
    await year('file');
  });

  // Twenty processes, each starting Node and DuckDB, share two cores with the other test file:
  // 25–35 s alone, past a minute beside the browser tests, so the limit is wider than the default.
  it('20 concurrent releases against a budget that fits exactly 7: exactly 7 succeed and the ledger holds exactly those', async () => {
    await race('file');
  }, 180_000);

  it('a process killed at any point leaves a ledger that check accepts, holding the release whenever its values were shown', async () => {
    await killed('file');
  });

  it('a ledger opened for other laws is refused before any work, and init never opens over a file', async () => {
    const L = locations('file');
    expect((await inProcess('ledger', 'init', '--ledger', L, '--scenario', 'heart', '--alpha', '2', '--epsilon', '1')).status).toBe(0);
    const r = await inProcess('release', '--scenario', 'adult', '--value', '3', '--ledger', L);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: --ledger: was opened for other secret-conditional laws \(scenario 'heart/);
    const again = await inProcess('ledger', 'init', '--ledger', L, '--scenario', 'heart', '--alpha', '2', '--epsilon', '5');
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/already exists/);
    expect(json(await inProcess('ledger', 'show', '--ledger', L, '--json')).budget.epsilon).toBe(1);
    expect((await inProcess('account', '--scenario', 'adult', '--ledger', L)).stderr).toMatch(/other secret-conditional laws/);
    expect(lawsDigest(heart)).toBe(json(await inProcess('ledger', 'show', '--ledger', L, '--json')).laws);
  });

  it('no scale fits: account --next says so (exit 2) at once, for an order ∞ Gaussian noise cannot meet and for a past over the budget', async () => {
    const L = locations('file');
    expect((await inProcess('ledger', 'init', '--ledger', L, '--scenario', 'heart', '--alpha', '2,inf', '--epsilon', '3')).status).toBe(0);
    const g = await inProcess('account', '--ledger', L, '--scenario', 'heart', '--next', 'gaussian');
    expect(g.status).toBe(2);
    expect(g.stderr).toMatch(/^error: --next: no further gaussian release fits the ledger's budget: .*no finite level at one of the budget's orders/);
    const L2 = locations('file');
    expect((await inProcess('ledger', 'init', '--ledger', L2, '--scenario', 'heart', '--alpha', '2', '--epsilon', '1')).status).toBe(0);
    const over = await inProcess('account', '--ledger', L2, '--scenario', 'heart', '--release', 'mechanism=laplace,scale=0.001', '--next', 'laplace');
    expect(over.status).toBe(2);
    expect(over.stderr).toMatch(/^error: --next: no further laplace release fits the ledger's budget: the certified joint level stays over it/);
  });

  it('the data itself within the budget: account --next says no noise is needed (data processing), typed or from a ledger', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pf-ledger-'));
    // Two laws on one support: D_2 = log(0.25/0.6 + 0.25/0.4) ≈ 0.041, under ε = 1; at ε = 0.01 noise is needed.
    const spec = join(dir, 'near.json');
    const laws = { a: { values: [0, 1], weights: [0.5, 0.5] }, b: { values: [0, 1], weights: [0.6, 0.4] } };
    writeFileSync(spec, JSON.stringify({ name: 'near', priors: [{ name: 'p', conditionals: laws }] }));
    const L = locations('file');
    expect((await inProcess('ledger', 'init', '--ledger', L, '--spec', spec, '--alpha', '2', '--epsilon', '1')).status).toBe(0);
    const typed = await inProcess('account', '--spec', spec, '--next', 'laplace', '--alpha', '2', '--epsilon', '1');
    const ledger = await inProcess('account', '--ledger', L, '--spec', spec, '--next', 'laplace');
    for (const r of [typed, ledger]) {
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(
        /next laplace release: no noise needed: the value itself \(scale 0, and any scale\) keeps all 1 releases within \(α = 2, ε = 1\) \(data processing/,
      );
    }
    expect(json(await inProcess('account', '--ledger', L, '--spec', spec, '--next', 'laplace', '--json')).next).toMatchObject({
      scale: 0,
      method: 'data-processing',
    });
    const tight = locations('file');
    expect((await inProcess('ledger', 'init', '--ledger', tight, '--spec', spec, '--alpha', '2', '--epsilon', '0.01')).status).toBe(0);
    const needed = json(await inProcess('account', '--ledger', tight, '--spec', spec, '--next', 'laplace', '--json')).next;
    expect(needed.scale).toBeGreaterThan(0.01);
    // An (ε, δ) budget is named as one (its ε is not a Rényi level at the order it goes through).
    const dl = locations('file');
    expect((await inProcess('ledger', 'init', '--ledger', dl, '--scenario', 'heart', '--alpha', '2,8,32', '--epsilon', '1', '--delta', '1e-6')).status).toBe(0);
    const d = await inProcess('account', '--ledger', dl, '--scenario', 'heart', '--next', 'laplace');
    expect(d.stdout).toMatch(/next laplace release: scale ≥ \S+ keeps all 1 releases within \(ε = 1, δ = 0\.000001\) through α = \d+ \(the ledger's budget\)/);
    // A source ledger's statistic that every row counts alike (equal contribution laws): no noise either.
    const heart = locations('file');
    const src = ['--data', 'examples/heart.csv', '--secret-column', 'fbs'];
    expect((await inProcess('ledger', 'init', '--ledger', heart, ...src, '--alpha', '2', '--epsilon', '1')).status).toBe(0);
    const all = await inProcess('account', '--ledger', heart, ...src, '--query', 'count:age >= 0', '--next', 'laplace');
    expect(all.status, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/^the next release of count:age >= 0 needs no noise: the data's own divergence keeps the ledger's budget/);
    expect(json(await inProcess('account', '--ledger', heart, ...src, '--query', 'count:age >= 0', '--next', 'laplace', '--json'))).toMatchObject({
      scale: 0,
      noNoise: true,
    });
    // A mean's laws differ in support (D_α = ∞ without noise): noise is needed.
    const some = await inProcess('account', '--ledger', heart, ...src, '--query', 'mean:oldpeak', '--next', 'laplace');
    expect(some.stdout).toMatch(/keeps the ledger's budget at laplace scale \S+ or more/);
  });

  it('a ledger an earlier accountant recorded passes its check with a note where the level is now lower; in a ledger this accountant opened, lower is a problem', async () => {
    // Recorded by an earlier version (test/fixtures/ledgers/README.md): two releases, coupled bound 0.114584.
    const dir = mkdtempSync(join(tmpdir(), 'pf-ledger-'));
    const old = join(dir, 'before-exact-2d.ledger');
    writeFileSync(old, gunzipSync(readFileSync(join(FIXTURES, 'ledgers/heart-two-releases-before-exact-2d.ledger.gz'))));
    const check = await inProcess('ledger', 'check', '--ledger', old, '--scenario', 'heart', '--json');
    expect(check.status, check.stdout + check.stderr).toBe(0);
    const c = json(check);
    expect([c.verdict, c.problems]).toEqual(['pass', []]);
    expect(c.releases[1].level).toBe(0.11458368343367);
    expect(c.current.level).toBeLessThan(0.11458368343367 / 5);
    expect(c.notes).toHaveLength(1);
    expect(c.notes[0]).toMatch(
      /^release 2 was recorded at level 0\.114584 \(α = 2\) by an earlier accountant \(version 1\); this one certifies 0\.018214\d* \(α = 2\): a tighter bound/,
    );
    expect((await inProcess('ledger', 'check', '--ledger', old, '--scenario', 'heart')).stdout).toMatch(
      /\nnote: release 2 was recorded [^\n]*\nverdict: pass\n$/,
    );
    // It takes further releases, accounted by this accountant.
    const more = await inProcess('release', '--scenario', 'heart', '--value', '1', '--scale', '2', '--ledger', old, '--json');
    expect(more.status, more.stderr).toBe(0);
    expect(json(more).ledger.level).toBeGreaterThan(c.current.level);
    // A ledger this version opened: a row whose scale was raised behind its back recomputes lower, a problem (no note).
    const L = join(dir, 'new.ledger');
    await inProcess('ledger', 'init', '--ledger', L, '--scenario', 'heart', '--alpha', '2', '--epsilon', '3');
    expect((await inProcess('release', '--scenario', 'heart', '--value', '1', '--scale', '1', '--ledger', L)).status).toBe(0);
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const inst = await DuckDBInstance.create(L);
    const con = await inst.connect();
    expect((await (await con.run("SELECT value FROM ledger_meta WHERE key = 'accountant'")).getRows())[0][0]).toBe('3');
    // Format 2: a build that reads format 1 only refuses it by its format, not as a changed digest.
    expect((await (await con.run("SELECT value FROM ledger_meta WHERE key = 'format'")).getRows())[0][0]).toBe('2');
    await con.run('UPDATE ledger_releases SET scale = 100');
    con.closeSync();
    inst.closeSync();
    const t = json(await inProcess('ledger', 'check', '--ledger', L, '--scenario', 'heart', '--json'));
    expect(t.verdict).toBe('fail');
    expect(t.notes).toEqual([]);
    expect(t.problems).toContainEqual(expect.stringMatching(/^release 1 recorded level [\d.e-]+, recomputed [\d.e-]+$/));
  });

  it('a corrupted ledger is reported and left as it is, never reset', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pf-ledger-'));
    const junk = join(dir, 'junk.ledger');
    writeFileSync(junk, 'not a database '.repeat(500));
    const before = readFileSync(junk);
    for (const args of [
      ['ledger', 'show', '--ledger', junk],
      ['ledger', 'check', '--ledger', junk],
      ['release', '--scenario', 'heart', '--value', '1', '--ledger', junk],
    ]) {
      const r = await inProcess(...args);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/is not a readable ledger .* it was left as it is/);
    }
    expect(readFileSync(junk).equals(before)).toBe(true);
    // A row changed behind the ledger's back (its scale raised in the database): check fails, releases are refused.
    const L = join(dir, 'tampered.ledger');
    await inProcess('ledger', 'init', '--ledger', L, '--scenario', 'heart', '--alpha', '2', '--epsilon', '10');
    expect((await inProcess('release', '--scenario', 'heart', '--value', '1', '--mechanism', 'gaussian', '--ledger', L, '--scale', '1')).status).toBe(0);
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const inst = await DuckDBInstance.create(L);
    const con = await inst.connect();
    await con.run('UPDATE ledger_releases SET scale = 100');
    con.closeSync();
    inst.closeSync();
    const c = await inProcess('ledger', 'check', '--ledger', L);
    expect(c.status).toBe(1);
    expect(c.stdout).toMatch(/release 1 differs from what was recorded \(digest mismatch\)/);
    expect((await inProcess('release', '--scenario', 'heart', '--value', '1', '--mechanism', 'gaussian', '--ledger', L, '--scale', '1')).stderr).toMatch(
      /not a readable ledger/,
    );
    // Releases removed from the end (the budget would look unspent): the head entry names them.
    const T = join(dir, 'truncated.ledger');
    await inProcess('ledger', 'init', '--ledger', T, '--scenario', 'heart', '--alpha', '2', '--epsilon', '10');
    for (const scale of ['2', '3'])
      expect((await inProcess('release', '--scenario', 'heart', '--value', '1', '--mechanism', 'gaussian', '--ledger', T, '--scale', scale)).status).toBe(0);
    const inst2 = await DuckDBInstance.create(T);
    const con2 = await inst2.connect();
    await con2.run('DELETE FROM ledger_releases WHERE seq = 2');
    con2.closeSync();
    inst2.closeSync();
    const t = await inProcess('ledger', 'check', '--ledger', T);
    expect(t.status).toBe(1);
    expect(t.stdout).toMatch(/release\(s\) 2–2 were removed/);
    // Blocks of a real ledger overwritten: DuckDB's checksum error (it names a 'block') is a
    // corrupted ledger, never 'stayed locked by another process'.
    const B = join(dir, 'blocks.ledger');
    await inProcess('ledger', 'init', '--ledger', B, '--scenario', 'heart', '--alpha', '2', '--epsilon', '10');
    const bytes = readFileSync(B);
    bytes.fill(0xab, 4096, 12288);
    writeFileSync(B, bytes);
    const b = await inProcess('ledger', 'show', '--ledger', B);
    expect(b.status).toBe(2);
    expect(b.stderr).toMatch(/is not a readable ledger .* it was left as it is/);
    expect(readFileSync(B).equals(bytes)).toBe(true);
  });

  it('a release of a table records its own noise (cost included), and any scale is stored exactly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pf-ledger-'));
    const L = join(dir, 'table.ledger');
    const S = ['--data', 'examples/heart.csv', '--query', 'oldpeak', '--secret-column', 'fbs'];
    expect((await inProcess('ledger', 'init', '--ledger', L, ...S, '--alpha', '2', '--epsilon', '1')).status).toBe(0);
    const r = await inProcess('release', ...S, '--mechanism', 'exponential', '--cost', 'sqrt', '--out', join(dir, 'o.csv'), '--ledger', L, '--json');
    expect(r.status, r.stderr).toBe(0);
    const huge = await inProcess('release', ...S, '--value', '1', '--mechanism', 'exponential', '--cost', 'sqrt', '--ledger', L, '--scale', '1e300', '--json');
    expect(huge.status, huge.stderr).toBe(0);
    const c = json(await inProcess('ledger', 'check', '--ledger', L, ...S, '--json'));
    expect(c.verdict).toBe('pass');
    expect(c.releases.map((x: { cost: string }) => x.cost)).toEqual(['sqrt', 'sqrt']);
    expect(c.releases[1].scale).toBe(1e300);
  });

  it('the library refuses a release it could not record faithfully, before writing anything', async () => {
    const { initLedger, recordRelease } = await import('../src/ledger/ledger.js');
    const { ledgerStore } = await import('../src/ledger/store.js');
    const store = ledgerStore(locations('file'));
    await initLedger(store, heart, { alphas: [2], epsilon: 1 });
    const ok = { mechanism: 'gaussian', scale: 5, count: 1, query: 'q' } as const;
    await expect(recordRelease(store, heart, { ...ok, count: 1.5 })).rejects.toThrow(/count: must be a whole number/);
    await expect(recordRelease(store, heart, { ...ok, count: 2e6 })).rejects.toThrow(/count: must be a whole number in \[1, 1000000\]/);
    await expect(recordRelease(store, heart, { ...ok, cost: { name: 'zzz', apply: () => 0, variance: () => 1 } })).rejects.toThrow(
      /cost: must be one of the named costs/,
    );
    await expect(recordRelease(store, heart, { ...ok, query: 5 as unknown as string })).rejects.toThrow(/query/);
    expect((await store.read()).rows).toHaveLength(0);
    expect((await recordRelease(store, heart, ok)).seq).toBe(1);
  });

  it('no output is written over the ledger (or a spec) it reads: refused before any work, the file unchanged', async () => {
    const L = locations('file');
    expect((await inProcess('ledger', 'init', '--ledger', L, '--scenario', 'heart', '--alpha', '2', '--epsilon', '5')).status).toBe(0);
    const before = readFileSync(L);
    const dir = mkdtempSync(join(tmpdir(), 'pf-over-'));
    const table = join(dir, 't.csv');
    writeFileSync(table, 'x,s\n1,a\n2,b\n3,a\n');
    const runs = [
      ['release', '--data', table, '--query', 'x', '--secret-column', 's', '--out', L, '--ledger', L, '--scale', '5'],
      ['release', '--scenario', 'heart', '--value', '1.4', '--ledger', L, '--scale', '5', '--spec-out', L],
      ['ledger', 'init', '--ledger', join(dir, 'new.ledger'), '--scenario', 'heart', '--alpha', '2', '--epsilon', '1', '--spec-out', join(dir, 'new.ledger')],
    ];
    for (const args of runs) {
      const r = await inProcess(...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^error: --(out|spec-out): '.*' is the input of --ledger; refusing to write over it\n$/);
    }
    // Nor over a ledger it was not given: a DuckDB file is refused by its content, whatever its name.
    const named = join(dir, 'budget.csv');
    copyFileSync(L, named);
    for (const args of [
      ['release', '--data', table, '--query', 'x', '--secret-column', 's', '--method', 'theorem', '--out', named],
      ['calibrate', '--data', table, '--query', 'x', '--secret-column', 's', '--method', 'theorem', '--spec-out', named],
    ]) {
      const r = await inProcess(...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^error: --(out|spec-out): '.*' is a DuckDB database \(a ledger is one\); refusing to write over it/);
    }
    expect(readFileSync(L).equals(before)).toBe(true);
    expect(readFileSync(named).equals(before)).toBe(true);
    expect(existsSync(join(dir, 'new.ledger'))).toBe(false);
    // Shown with another source's laws: says so, never asks for the source it was given.
    const shown = await inProcess('ledger', 'show', '--ledger', L, '--scenario', 'student-mat');
    expect(shown.stdout).toMatch(/the joint level is not recomputed:\n {2}the laws given are not the ledger's/);
    expect(shown.stdout).not.toMatch(/give the ledger’s source/);
    const spec = join(dir, 's.json');
    writeFileSync(spec, JSON.stringify({ priors: [{ name: 'p', conditionals: { a: { values: [0, 1], counts: [1, 1] }, b: { values: [0], counts: [1] } } }] }));
    const r = await inProcess('calibrate', '--spec', spec, '--spec-out', spec);
    expect(r.stderr).toMatch(/^error: --spec-out: '.*' is the input of --spec; refusing to write over it/);
    expect(JSON.parse(readFileSync(spec, 'utf8')).priors).toHaveLength(1);
  });

  it('bad input names the flag', async () => {
    expect((await inProcess('release', '--scenario', 'heart', '--value', '1', '--scale', '2')).stderr).toMatch(/^error: --scale: goes with --ledger/);
    const L = locations('file');
    expect((await inProcess('release', '--scenario', 'heart', '--value', '1', '--ledger', L)).stderr).toMatch(/^error: --ledger: no ledger at/);
    expect((await inProcess('ledger', 'init', '--ledger', L, '--scenario', 'heart', '--epsilon', '1')).stderr).toMatch(/^error: --alpha: is required/);
    expect((await inProcess('ledger', 'init', '--ledger', L, '--scenario', 'heart', '--alpha', '0.5', '--epsilon', '1')).stderr).toMatch(
      /^error: --alpha: joint accounting covers α > 1/,
    );
    expect((await inProcess('release', '--scenario', 'heart', '--value', '1', '--ledger', L, '--truncate', '0,3')).stderr).toMatch(
      /^error: --truncate: is not taken with --ledger/,
    );
  });
});

describe.skipIf(!!pgSkipped)(`release ledger (PostgreSQL)${pgSkipped ? ` — SKIPPED: ${pgSkipped}` : ''}`, () => {
  it('the 12-release year', async () => {
    const L = await year('postgres');
    // The location printed never carries credentials.
    expect(json(cli('ledger', 'show', '--ledger', L, '--json')).ledger).not.toMatch(/@/);
  });
  it('20 concurrent releases: exactly k succeed', async () => {
    await race('postgres');
  }, 180_000);
  it('a process killed at any point leaves a ledger that check accepts', async () => {
    await killed('postgres');
  });
});

describe('a refused Laplace release names what Gaussian noise would need', () => {
  it('the σ it names for N Gaussian releases from the start fits the budget', async () => {
    const L = join(mkdtempSync(join(tmpdir(), 'pufferfish-ledger-hint-')), 'year.ledger');
    expect((await inProcess('ledger', 'init', '--ledger', L, '--scenario', 'heart', '--alpha', '2,8', '--epsilon', '1')).status).toBe(0);
    const laplace = () => inProcess('release', '--scenario', 'heart', '--value', '1', '--mechanism', 'laplace', '--scale', '2', '--ledger', L);
    // Two Laplace releases of one value are accounted exactly (on ℝ², docs/math.md §12); a third by the bounds.
    expect((await laplace()).status).toBe(0);
    expect((await laplace()).status).toBe(0);
    const r = await laplace();
    expect(r.status).toBe(2);
    const m = /a ledger of (\d+) gaussian releases from the start fits this budget at σ = ([\d.e+]+) each/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    // The chain rule (two exactly, the third at its widest shift) leaves a scale that fits, and names it.
    expect(r.stderr).toMatch(/the smallest scale that still fits is [\d.]+/);
    const [n, sigma] = [Number(m![1]), Number(m![2])];
    expect(n).toBe(3);
    expect(budgetLevel(heart, [{ mechanism: 'gaussian', scale: sigma, count: n }], { alphas: [2, 8], epsilon: 1 }).level).toBeLessThanOrEqual(1);
  });
});
