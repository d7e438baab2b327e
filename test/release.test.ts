import { exactLaplaceDInf } from '../src/mechanisms/laplace/dInf.js';
import { noiseOf } from '../src/mechanisms/kernels.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { laplaceRdp } from '../src/conditions/pierquin.js';
import { fromCounts, type Discrete } from '../src/distribution/discrete.js';
import type { Scenario } from '../src/distribution/scenario.js';
import { exactRenyi, logMassIn } from '../src/divergence/exactRenyi.js';
import fc from 'fast-check';
import { stickyChain } from './chains.js';
import { markovScenario } from '../src/markov/source.js';
import { InputError } from '../src/errors.js';
import { release } from '../src/release/release.js';
import { calibrateTruncated } from '../src/release/truncated.js';
import { builtinScenario } from '../src/scenarios/builtin.js';
import { seededSource } from './seeded.js';
import { runInProcess as inProcess } from './inProcess.js';

const point = (x: number) => fromCounts([x], [1]);
const truncD = (family: 'laplace' | 'gaussian', scale: number, alpha: number, I: [number, number]) =>
  Math.max(
    exactRenyi(point(0), point(1), noiseOf(family, scale), alpha, { interval: I }).value,
    exactRenyi(point(1), point(0), noiseOf(family, scale), alpha, { interval: I }).value,
  );

describe('truncated mechanisms (seed 004, docs/math.md §5)', () => {
  it('the Laplace counterexamples exceed the untruncated RDP', () => {
    expect(truncD('laplace', 1, 5, [0, Infinity])).toBeCloseTo(0.94082, 5);
    expect(laplaceRdp(5, 1)).toBeCloseTo(0.85308, 5);
    expect(truncD('laplace', 0.5, 3, [0, 2])).toBeCloseTo(1.77082, 5);
    expect(laplaceRdp(3, 2)).toBeCloseTo(1.7446, 4);
  });

  it('the truncated Gaussian never exceeds αΔ²/(2σ²) on a grid of intervals', () => {
    const ends = [-Infinity, -3, -1, 0, 0.5, 1, 2, 4, Infinity];
    for (const sigma of [0.3, 1, 3])
      for (const alpha of [1.5, 2, 5]) {
        for (const lo of ends)
          for (const hi of ends) {
            if (!(lo < hi) || (lo === -Infinity && hi === Infinity)) continue;
            const d = truncD('gaussian', sigma, alpha, [lo, hi]);
            expect(d).toBeLessThanOrEqual((alpha * 1) / (2 * sigma * sigma) + 1e-9);
          }
      }
  });

  it('truncated calibration meets ε on the truncated outputs and refuses negligible intervals', () => {
    const s = builtinScenario('heart');
    const t = calibrateTruncated(s, { mechanism: 'laplace', method: 'exact', alpha: 2, epsilon: 1 }, [0, 7]);
    const c = s.priors[0].conditionals;
    // Each atom's output renormalised on its own (the value stays, the noise is redrawn): the law is
    // the mixture reweighted by 1/F_x([0, 7]), F_x in closed form here.
    const b = t.scale;
    const cdf = (z: number) => (z < 0 ? Math.exp(z / b) / 2 : 1 - Math.exp(-z / b) / 2);
    const redrawn = (d: Discrete) => {
      const w = Array.from(d.values, (x, i) => d.masses[i] / (cdf(7 - x) - cdf(-x)));
      const total = w.reduce((a, x) => a + x, 0);
      return { values: d.values, masses: Float64Array.from(w, (x) => x / total) };
    };
    for (const [p, q] of [
      [c['0'], c['1']],
      [c['1'], c['0']],
    ]) {
      expect(exactRenyi(redrawn(p), redrawn(q), noiseOf('laplace', b), 2, { interval: [0, 7] }).value).toBeLessThanOrEqual(1);
    }
    expect(() => calibrateTruncated(s, { mechanism: 'laplace', method: 'exact', alpha: 2, epsilon: 1 }, [0, 1e-300])).toThrow(
      /narrower than the doubles resolve at the value 0\.1/,
    );
    expect(() => release(s, { mechanism: 'gaussian', method: 'best', alpha: 2, epsilon: 1 }, 50, { truncate: [0, 7] })).toThrow(
      /value 50 lands in \[0, 7\] with probability .*negligible/,
    );
  });
});

describe('truncated calibration: input checks and intervals beyond the data', () => {
  const s = builtinScenario('heart');
  const laplace = { mechanism: 'laplace', method: 'exact', alpha: 2, epsilon: 1 } as const;
  it('refuses α = 1, α = 0 and ε = 0 as input errors naming the field', () => {
    for (const [alpha, epsilon, field] of [
      [1, 1, 'alpha'],
      [0, 1, 'alpha'],
      [2, 0, 'epsilon'],
    ] as const) {
      let err: unknown;
      try {
        calibrateTruncated(s, { ...laplace, alpha, epsilon }, [0, 7]);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).path).toBe(field);
    }
  });
  it('an interval beyond every atom needs no noise for Laplace-shaped noise (D_α = 0 at every scale)', () => {
    const t = calibrateTruncated(s, laplace, [10, 20]);
    expect(t.scale).toBe(0);
    expect(t.binding).toBeNull();
    expect(t.explanation).toMatch(/beyond every atom/);
    const c = s.priors[0].conditionals;
    for (const b of [1e-3, 0.5, 7]) expect(exactRenyi(c['0'], c['1'], noiseOf('laplace', b), 2, { interval: [10, 20] }).value).toBeLessThan(1e-9);
    expect(() => release(s, laplace, 1.4, { truncate: [10, 20] })).toThrow(/allow-no-noise: the calibrated scale is 0/);
    expect(() => release(s, laplace, 1.4, { truncate: [10, 20], allowNoNoise: true })).toThrow(/outside \[10, 20\]/);
  });
});

describe('release', () => {
  const s = builtinScenario('heart');
  it("notes a value outside every secret's law, and doubles coarser than the noise there; says nothing otherwise", () => {
    const settings = { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 } as const;
    expect(release(s, settings, 1.4, { random: seededSource(1n) }).note).toBeUndefined();
    expect(release(s, settings, -3, { random: seededSource(1n) }).note).toMatch(/^the value -3 lies outside every secret's law \(atoms in \[0, 6\.2\]\)/);
    const far = release(s, settings, 1e17, { random: seededSource(1n) });
    expect(far.note).toMatch(/lies outside every secret's law.*; doubles near 100000000000000000 are 16 apart, wider than the noise's error bar/);
  });
  it('draws calibrated releases and states the guarantee', () => {
    const r = release(s, { mechanism: 'gaussian', method: 'best', alpha: 2, epsilon: 1 }, 1.4, { count: 5, random: seededSource(7n) });
    expect(r.values).toHaveLength(5);
    expect(new Set(r.values).size).toBe(5);
    expect(r.method).toBe('exact');
    expect(r.scale).toBeGreaterThan(0);
    // Five releases of one value are calibrated together (docs/math.md §9): σ is √5 times one release's.
    expect(r.guarantee).toMatch(/\(α=2, ε=1\)-Rényi Pufferfish privacy of the 5 releases together/);
    const t = release(s, { mechanism: 'laplace', method: 'best', alpha: 2, epsilon: 1 }, 1.4, {
      count: 50,
      truncate: [0, 7],
      random: seededSource(8n),
      perRelease: true,
    });
    expect(t.guarantee).toMatch(/each of the 50 releases alone, not for them together/);
    for (const v of t.values) expect(v >= 0 && v <= 7).toBe(true);
  });
  it('needs no noise when the data already meets ε, says so, and releases the raw value only by consent', () => {
    const st = { mechanism: 'laplace', method: 'best', alpha: 2, epsilon: 1 } as const;
    expect(() => release(builtinScenario('adult'), st, 13)).toThrow(
      /allow-no-noise: the calibrated scale is 0, so the release would be the raw value \(best of .*data processing/,
    );
    const r = release(builtinScenario('adult'), st, 13, { count: 2, allowNoNoise: true });
    expect(r.values).toEqual([13, 13]);
    expect(r.guarantee).toMatch(/no noise/);
  });
  it('rejects bad values and counts', () => {
    const st = { mechanism: 'laplace' as const, method: 'best' as const, alpha: 2, epsilon: 1 };
    expect(() => release(s, st, NaN)).toThrow(InputError);
    expect(() => release(s, st, 1, { count: 0 })).toThrow('count: must be a whole number ≥ 1');
  });
});

describe('pufferfish release (CLI)', () => {
  const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
  const run = (...args: string[]) => spawnSync(process.execPath, [BIN, 'release', ...args], { encoding: 'utf8' });
  it('prints the mechanism, scale, guarantee and values; --json mirrors them', () => {
    const t = run('--scenario', 'heart', '--value', '1.4', '--count', '3');
    expect(t.status).toBe(0);
    // Three Laplace releases together: exact accounting would need a 3-D integral, so coupled wins.
    expect(t.stdout).toMatch(/laplace noise, b = [\d.]+ \(method coupled\)/);
    expect(t.stdout).toMatch(/of the 3 releases together/);
    expect(t.stdout).toMatch(/guarantee: \(α=2, ε=1\)-Rényi Pufferfish privacy/);
    expect(
      t.stdout
        .trim()
        .split('\n')
        .slice(-4, -1)
        .every((l) => Number.isFinite(Number(l.split('\t')[0])) && /^\[-?[\d.e+-]+, -?[\d.e+-]+\]$/.test(l.split('\t')[1])),
    ).toBe(true);
    expect(run('--scenario', 'heart', '--value', '1.4', '--count', '2', '--truncate', '0,inf').stderr).toMatch(
      /^error: --count: 2 truncated releases cannot be accounted together/,
    );
    const j = JSON.parse(run('--scenario', 'heart', '--value', '1.4', '--count', '2', '--truncate', '0,inf', '--per-release', '--json').stdout);
    expect(j.values).toHaveLength(2);
    expect(j.truncate).toEqual([0, 'inf']);
    expect(j.method).toBe('exact (truncated)');
  });
  it('--delta: an (ε, δ) target — the scale of calibrate --delta, its Rényi order checked independently', async () => {
    const { renyiBudgetFor } = await import('../src/calibrate/epsDelta.js');
    const calib = async (...a: string[]) => JSON.parse((await inProcess('calibrate', ...a, '--json')).stdout).results[0];
    const release = (...a: string[]) => inProcess('release', ...a);
    for (const mechanism of ['laplace', 'gaussian']) {
      const r = await release('--scenario', 'heart', '--value', '1.4', '--mechanism', mechanism, '--epsilon', '1', '--delta', '1e-6', '--json');
      expect(r.status, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout);
      expect(j.target).toEqual({ epsilon: 1, delta: 1e-6 });
      expect(j.guarantee).toMatch(/^\(ε=1, δ=0\.000001\)-Pufferfish privacy of each release/);
      const c = await calib('--scenario', 'heart', '--mechanism', mechanism, '--epsilon', '1', '--delta', '1e-6');
      expect(j.scale).toBe(c.scale);
      expect(j.alpha).toBe(c.alpha);
      // The Rényi budget calibrated for is what the sharper conversion allows at that order, and
      // the exact divergence at the released scale stays within it.
      // At α = ∞ (ε-Pufferfish, which implies every δ) the budget is ε itself.
      const [p, q] = Object.values(builtinScenario('heart').priors[0].conditionals);
      if (j.alpha === 'inf') {
        expect(mechanism).toBe('laplace');
        expect(j.epsilon).toBe(1);
        for (const [a, b] of [
          [p, q],
          [q, p],
        ]) {
          const d = exactLaplaceDInf(a, b, j.scale);
          expect(d.value + d.error).toBeLessThanOrEqual(1);
        }
        continue;
      }
      expect(j.epsilon).toBeLessThanOrEqual(renyiBudgetFor(1, 1e-6, j.alpha));
      const d = exactRenyi(p, q, noiseOf(mechanism as 'laplace' | 'gaussian', j.scale), j.alpha);
      expect(d.value + d.error).toBeLessThanOrEqual(j.epsilon);
    }
    // --alpha names the orders searched; --count N accounts the N releases together.
    const two = JSON.parse((await release('--scenario', 'heart', '--value', '1.4', '--delta', '1e-5', '--alpha', '16,32,64', '--count', '2', '--json')).stdout);
    expect([16, 32, 64]).toContain(two.alpha);
    expect(two.guarantee).toMatch(/\(ε=1, δ=0\.00001\)-Pufferfish privacy of the 2 releases together/);
    expect(two.scale).toBe((await calib('--scenario', 'heart', '--delta', '1e-5', '--alpha', '16,32,64', '--releases', '2')).scale);
    // A privatized table (--out) takes the same target.
    const { UCI_DIR } = await import('./uci.js');
    const table = ['--data', join(UCI_DIR, 'heart-disease', 'processed.cleveland.data'), '--query', 'oldpeak', '--secret-column', 'fbs', '--delta', '1e-6'];
    const out = join(mkdtempSync(join(tmpdir(), 'pufferfish-delta-')), 'o.csv');
    const t = await release(...table, '--out', out, '--json');
    expect(t.status, t.stderr).toBe(0);
    expect(JSON.parse(t.stdout)).toMatchObject({ target: { epsilon: 1, delta: 1e-6 }, scale: (await calib(...table)).scale });
    // A spec may carry the target ("delta", no "alpha needed"); a bad one is named by its field.
    const specDir = mkdtempSync(join(tmpdir(), 'pufferfish-spec-delta-'));
    const spec = (extra: object) => {
      const f = join(specDir, `${Object.values(extra).join('_')}.json`);
      const conditionals = { a: { values: [0, 1], counts: [3, 1] }, b: { values: [0, 2], counts: [1, 1] } };
      writeFileSync(f, JSON.stringify({ priors: [{ name: 'p', conditionals }], mechanism: 'gaussian', epsilon: 1, ...extra }));
      return f;
    };
    const viaSpec = await calib('--spec', spec({ delta: 1e-6 }));
    expect(viaSpec.target).toEqual({ epsilon: 1, delta: 1e-6 });
    expect(viaSpec.scale).toBe((await calib('--spec', spec({ alpha: 2 }), '--delta', '1e-6')).scale);
    const fromSpec = JSON.parse((await release('--spec', spec({ delta: 1e-6 }), '--value', '1', '--json')).stdout);
    expect(fromSpec).toMatchObject({ target: { epsilon: 1, delta: 1e-6 }, scale: viaSpec.scale });
    const bad = await inProcess('calibrate', '--spec', spec({ delta: 2 }));
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^error: spec\.delta: must be in \(0, 1\)/);
  });
  it("a truncated table release (--out) writes each row's exact interval beside its value; they hold the true values at the confidence", async () => {
    const { UCI_DIR } = await import('./uci.js');
    const data = join(UCI_DIR, 'heart-disease', 'processed.cleveland.data');
    const out = join(mkdtempSync(join(tmpdir(), 'pufferfish-truncated-out-')), 'o.csv');
    const r = await inProcess('release', '--data', data, '--query', 'chol', '--secret-column', 'fbs', '--truncate', '100,600', '--out', out, '--json');
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).columns).toEqual(['chol', 'chol_lo', 'chol_hi']);
    const truth = readFileSync(data, 'utf8')
      .trim()
      .split('\n')
      .map((line) => Number(line.split(',')[4]));
    const rows = readFileSync(out, 'utf8').trim().split('\n');
    expect(rows[0]).toBe('chol,chol_lo,chol_hi');
    const written = rows.slice(1).map((line) => line.split(',').map(Number));
    expect(written).toHaveLength(truth.length);
    // Each interval is the truncated law's, within the truncation; 95% of them hold the true value.
    let held = 0;
    written.forEach(([, lo, hi], i) => {
      expect(100 <= lo && lo <= hi && hi <= 600, `row ${i + 1}`).toBe(true);
      if (lo <= truth[i] && truth[i] <= hi) held++;
    });
    // Binomial(303, 0.95): 288 expected, standard deviation 3.8; fewer than 270 is over 4.7 deviations below.
    expect(held).toBeGreaterThanOrEqual(270);
    // The engine's column names ignore case: a kept column that would clash with an interval column is refused.
    const clash = join(mkdtempSync(join(tmpdir(), 'pufferfish-truncated-clash-')), 't.csv');
    writeFileSync(clash, 'x,X_lo,s\n1,5,a\n2,6,b\n3,7,a\n4,8,b\n');
    const refused = await inProcess(
      'release',
      '--data',
      clash,
      '--query',
      'x',
      '--secret-column',
      's',
      '--truncate',
      '0,10',
      '--keep',
      'X_lo',
      '--out',
      join(tmpdir(), `pf-clash-${process.pid}.csv`),
    );
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/^error: --keep: 'x_lo' is where the truncated release's interval is written/);
    // An untruncated release's error bar is one number (printed), and no interval columns are written.
    const plain = await inProcess('release', '--data', data, '--query', 'chol', '--secret-column', 'fbs', '--out', out.replace('o.csv', 'p.csv'), '--json');
    expect(JSON.parse(plain.stdout).columns).toEqual(['chol']);
  });

  it('the library never writes the secret column: a kept column needs the secret named (one of the table’s columns), and the secret is never kept', async () => {
    const { privatizeTable } = await import('../src/sources/privatize.js');
    const src = { kind: 'csv', location: 'examples/heart.csv' } as const;
    const settings = { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 } as const;
    const out = join(mkdtempSync(join(tmpdir(), 'pufferfish-privatize-')), 'o.csv');
    const heart = builtinScenario('heart');
    // It wrote oldpeak, fbs, age before: the library had no name for the secret unless told.
    await expect(privatizeTable(src, 'oldpeak', heart, settings, out, { keep: ['fbs', 'age'] })).rejects.toMatchObject({
      path: 'keep',
      reason: expect.stringMatching(/names no secret/),
    });
    await expect(privatizeTable(src, 'oldpeak', heart, settings, out, { keep: ['fbs', 'age'], secretColumn: 'fbs' })).rejects.toThrow(
      /^keep: 'fbs' is the secret column/,
    );
    // A secret named otherwise than the table's column, or an option it does not read (the former `forbidden`), guards nothing: refused.
    await expect(privatizeTable(src, 'oldpeak', heart, settings, out, { keep: ['fbs'], secretColumn: 'FBS' })).rejects.toMatchObject({ path: 'secretColumn' });
    await expect(privatizeTable(src, 'oldpeak', heart, settings, out, { keep: ['fbs'], forbidden: ['fbs'] } as never)).rejects.toMatchObject({
      path: 'options.forbidden',
    });
    const r = await privatizeTable(src, 'oldpeak', heart, settings, out, { keep: ['age'], secretColumn: 'fbs' });
    expect(r.rows).toBe(303);
    expect(readFileSync(out, 'utf8').split('\n')[0]).toBe('oldpeak,age');
  });

  it.each([
    [['--scenario', 'heart', '--value', '1', '--delta', '0'], /^error: --delta: must be in \(0, 1\), got '0'/],
    [['--scenario', 'heart', '--value', '1', '--delta', '1e-6', '--truncate', '0,inf'], /^error: --delta: truncated releases take a Rényi target/],
    [['--scenario', 'heart'], /^error: --value: is required/],
    [['--scenario', 'heart', '--value', 'abc'], /^error: --value: must be a finite number/],
    [['--scenario', 'heart', '--value', '1', '--count', '0'], /^error: --count: must be a whole number/],
    [['--scenario', 'heart', '--value', '1', '--truncate', '3,1'], /^error: --truncate: must be LO,HI with LO < HI/],
    [['--scenario', 'heart', '--value', '1', '--truncate', '0,1e-300'], /^error: --truncate: \[0, 1e-300\] is narrower than the doubles resolve/],
    [['--scenario', 'heart', '--value', '1', '--truncate', '100,101', '--allow-no-noise'], /^error: --truncate: value 1 is outside \[100, 101\]/],
    [['--scenario', 'adult', '--value', '10', '--count', '3'], /^error: --allow-no-noise: the calibrated scale is 0, so the release would be the raw value/],
    [['--scenario', 'heart', '--value', '1', '--alpha', '2,3'], /^error: --alpha: release takes one α, got 2 \(2, 3\)/],
    [['--scenario', 'heart', '--value', '1', '--epsilon', '0.5,1'], /^error: --epsilon: release takes one ε, got 2 \(0\.5, 1\)/],
    [
      ['--scenario', 'heart', '--value', '1', '--method', 'exact,theorem'],
      /^error: --method: release takes one method, got 2 \(exact, theorem\) \(--method best/,
    ],
    [['--scenario', 'heart', '--value', '1', '--delta', '1e-6', '--epsilon', '0.5,1'], /^error: --epsilon: release takes one ε/],
  ])('bad input %#: exit 2, one line', (args, msg) => {
    const r = run(...(args as string[]));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(msg);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('releaseColumn', () => {
  it('adds independent calibrated noise to every row and keeps missing rows missing', async () => {
    const { releaseColumn } = await import('../src/release/release.js');
    const r = releaseColumn(builtinScenario('heart'), { mechanism: 'laplace', method: 'best', alpha: 2, epsilon: 1 }, [1, 2, null, 3, NaN], {
      random: seededSource(3n),
    });
    expect(r.values).toHaveLength(5);
    expect(r.values[2]).toBeNull();
    expect(r.values[4]).toBeNull();
    expect(r.missing).toBe(2);
    expect(r.values.filter((v) => v !== null).every((v, i) => v !== [1, 2, 3][i])).toBe(true);
  });
});

describe('truncated releases: the value stays, only the noise is redrawn', () => {
  it("each atom's output is renormalised on its own: the law that leaked the secret at b ≈ 1e-13 now needs b ≈ 0.67", async () => {
    const { calibrateTruncated } = await import('../src/release/truncated.js');
    // a = {0, 3}, b = {0, −2}, I = [0, 1]: x = 3 lands near 1, x = −2 near 0. Renormalising the pooled
    // mixture instead (as if X were redrawn too) hid both, and b → 0 looked private (D∞ ≈ 0).
    const scenario: Scenario = {
      name: 'edges',
      priors: [{ name: 'p', conditionals: { a: fromCounts([0, 3], [1, 1]), b: fromCounts([-2, 0], [1, 1]) } }],
    };
    const [lo, hi] = [0, 1];
    const r = calibrateTruncated(scenario, { mechanism: 'laplace', method: 'exact', alpha: Infinity, epsilon: 1 }, [lo, hi]);
    // Independently: F_x(I) in closed form, the per-atom truncated densities summed by hand; the
    // sup of log p/q over I is at an atom or an end (Laplace mixtures, docs/math.md §4).
    const b = r.scale;
    const cdf = (t: number) => (t < 0 ? Math.exp(t / b) / 2 : 1 - Math.exp(-t / b) / 2);
    const density = (atoms: [number, number][], y: number) =>
      atoms.reduce((s, [x, w]) => s + (w * Math.exp(-Math.abs(y - x) / b)) / (2 * b) / (cdf(hi - x) - cdf(lo - x)), 0);
    const A: [number, number][] = [
      [0, 0.5],
      [3, 0.5],
    ];
    const B: [number, number][] = [
      [-2, 0.5],
      [0, 0.5],
    ];
    const sup = Math.max(...[0, 0.25, 0.5, 0.75, 1].flatMap((y) => [Math.log(density(A, y) / density(B, y)), Math.log(density(B, y) / density(A, y))]));
    expect(sup).toBeLessThanOrEqual(1 + 1e-9);
    expect(sup).toBeGreaterThan(0.999);
    expect(b).toBeGreaterThan(0.6);
  });
});

describe('released values outside the data’s range are explained, not hidden', () => {
  it('a note names how many, that publishing them is safe, and how to keep releases in range', () => {
    const heart = builtinScenario('heart');
    const settings = { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 } as const;
    const r = release(heart, settings, 0, { count: 40, perRelease: true, random: seededSource(7n) });
    const below = (r.values as number[]).filter((y) => y < 0).length;
    expect(below).toBeGreaterThan(0);
    expect('drawNote' in r && r.drawNote).toMatch(
      new RegExp(`^${below} released value\\(s\\) lie outside the range the data takes \\(\\[0, 6\\.2\\]\\).*--truncate 0,6\\.2`),
    );
    const inside = release(heart, settings, 3, { count: 1, random: seededSource(1n) });
    expect((inside.values as number[]).every((y) => y >= 0 && y <= 6.2) ? 'drawNote' in inside : true).toBe(false);
  });
});

describe('truncated releases at the one-pass speed (docs/math.md §5, §8)', () => {
  const laws = (xs: number[], ws: number[]) => {
    const order = xs.map((x, i) => [x, ws[i]] as const).sort((a, b) => a[0] - b[0]);
    const merged = new Map<number, number>();
    for (const [x, w] of order) merged.set(x, (merged.get(x) ?? 0) + w);
    return fromCounts([...merged.keys()], [...merged.values()]);
  };
  const atoms = fc.array(fc.tuple(fc.integer({ min: -20, max: 20 }), fc.integer({ min: 1, max: 9 })), { minLength: 1, maxLength: 8 });
  const end = fc.constantFrom(-Infinity, -25, -3, -0.5, 0, 1.5, 2, 7, 30, Infinity);

  it('the gap rule over an interval agrees with the adaptive quadrature within both certified errors', () => {
    fc.assert(
      fc.property(atoms, atoms, end, end, fc.constantFrom(0.05, 0.4, 1, 6), fc.constantFrom(0.5, 2, 5), fc.boolean(), (a, c, lo, hi, b, alpha, quick) => {
        fc.pre(lo < hi && !(lo === -Infinity && hi === Infinity));
        const [p, q] = [laws(...unzip(a)), laws(...unzip(c))];
        const I: [number, number] = [lo, hi];
        const noise = noiseOf('laplace', b);
        const fast = exactRenyi(p, q, noise, alpha, { interval: I, quick });
        const slow = exactRenyi(p, q, noise, alpha, { interval: I, adaptive: true });
        if (!Number.isFinite(slow.value) || !Number.isFinite(fast.value)) return;
        expect(Math.abs(fast.value - slow.value), `b=${b} α=${alpha} I=[${lo}, ${hi}]`).toBeLessThanOrEqual(fast.error + slow.error + 1e-12);
        if (!quick) expect(fast.error).toBeLessThan(1e-8);
      }),
      { numRuns: 150, seed: 5 },
    );
  });

  it("a mixture's chance of landing in an interval is its atoms' CDF differences, in closed form", () => {
    const cdf = (z: number, b: number) => (z < 0 ? Math.exp(z / b) / 2 : 1 - Math.exp(-z / b) / 2);
    fc.assert(
      fc.property(atoms, end, end, fc.constantFrom(0.05, 0.4, 1, 6), (a, lo, hi, b) => {
        fc.pre(lo < hi);
        const p = laws(...unzip(a));
        const m = logMassIn(p, noiseOf('laplace', b), [lo, hi]);
        const brute = Array.from(p.values, (x, i) => p.masses[i] * (cdf(hi - x, b) - cdf(lo - x, b))).reduce((s, v) => s + v, 0);
        // The brute sum loses digits to cancellation where the interval is far in a tail; compare where it has them.
        if (brute > 1e-6) expect(Math.abs(m.value - Math.log(brute))).toBeLessThanOrEqual(m.error + 1e-9);
        expect(m.error).toBeLessThan(1e-10);
      }),
      { numRuns: 200, seed: 6 },
    );
  });

  it("a truncated release of a chain's count: the one scale meets ε for every pair, checked by the adaptive quadrature", () => {
    const T = 8;
    const model = stickyChain(T, { count: 'b' });
    const scenario = markovScenario(model, 'chain').scenario as Scenario;
    const I: [number, number] = [0, T];
    const t = calibrateTruncated(scenario, { mechanism: 'laplace', method: 'exact', alpha: 2, epsilon: 1 }, I);
    const b = t.scale;
    expect(b).toBeGreaterThan(0);
    const cdf = (z: number) => (z < 0 ? Math.exp(z / b) / 2 : 1 - Math.exp(-z / b) / 2);
    const redrawn = (d: Discrete) => {
      const w = Array.from(d.values, (x, i) => d.masses[i] / (cdf(I[1] - x) - cdf(I[0] - x)));
      const total = w.reduce((a, x) => a + x, 0);
      return { values: d.values, masses: Float64Array.from(w, (x) => x / total) };
    };
    let worst = 0;
    for (const prior of scenario.priors) {
      const secrets = Object.keys(prior.conditionals);
      for (const s1 of secrets)
        for (const s2 of secrets) {
          if (s1 === s2) continue;
          const d = exactRenyi(redrawn(prior.conditionals[s1]), redrawn(prior.conditionals[s2]), noiseOf('laplace', b), 2, { interval: I, adaptive: true });
          worst = Math.max(worst, d.value + d.error);
        }
    }
    // Every pair within ε (the laws' rounding charge aside), and the binding one close to it: not a loose scale.
    expect(worst).toBeLessThanOrEqual(1 + 1e-9);
    expect(worst).toBeGreaterThan(0.999);
  });
});

function unzip(xs: readonly (readonly [number, number])[]): [number[], number[]] {
  return [xs.map((x) => x[0]), xs.map((x) => x[1])];
}
