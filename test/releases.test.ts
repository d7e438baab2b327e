import { noiseOf } from '../src/mechanisms/kernels.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { calibrate, type CalibrationSettings } from '../src/calibrate/calibrate.js';
import type { Scenario } from '../src/distribution/scenario.js';
import { fromCounts, fromWeights, type Discrete } from '../src/distribution/discrete.js';
import { exactRenyi } from '../src/divergence/exactRenyi.js';
import { InputError } from '../src/errors.js';
import { release } from '../src/release/release.js';
import { builtinScenario } from '../src/scenarios/builtin.js';
import { twoReleaseRenyiAt } from './quadrature2d.js';
import { seededSource } from './seeded.js';

const pairScenario = (p: Discrete, q: Discrete): Scenario => ({ name: 'pair', priors: [{ name: 'p', conditionals: { P: p, Q: q } }] });
/** The collapse example: a point mass against 1% of mass 5 away. */
const collapse = pairScenario(fromCounts([0], [1]), fromWeights([0, 5], [0.99, 0.01]));

describe('repeated releases are accounted together (docs/math.md §9)', () => {
  it('reproduces the collapse: a σ exact for one release leaks D₂ > 10 over two releases and ≈ 68.8 over eight', () => {
    const one = calibrate(collapse, { mechanism: 'gaussian', method: 'exact', alpha: 2, epsilon: 1 });
    expect(one.scale).toBeGreaterThan(1.6);
    expect(one.scale).toBeLessThan(1.61);
    const [p, q] = [collapse.priors[0].conditionals.P, collapse.priors[0].conditionals.Q];
    // Two releases are one at σ/√2 (the mean is sufficient).
    expect(exactRenyi(q, p, noiseOf('gaussian', one.scale / Math.SQRT2), 2).value).toBeGreaterThan(10);
    expect(exactRenyi(q, p, noiseOf('gaussian', one.scale / Math.sqrt(8)), 2).value).toBeCloseTo(68.8, 1);
  });

  it('Gaussian: N releases get √N times one release’s σ (never less, up to exact’s search tolerance), for every method, and exact holds at σ_N/√N', () => {
    for (const method of ['theorem', 'pierquin', 'coupled', 'exact'] as const) {
      const base: CalibrationSettings = { mechanism: 'gaussian', method, alpha: 2, epsilon: 1 };
      const one = calibrate(collapse, base).scale;
      for (const n of [2, 5, 64]) {
        const r = calibrate(collapse, { ...base, releases: n });
        expect(r.releases).toBe(n);
        // Closed-form conditions scale exactly; exact runs its own search, whose bracket is 10⁻¹⁰ wide (relative).
        expect(r.scale).toBeGreaterThanOrEqual(Math.sqrt(n) * one * (1 - (method === 'exact' ? 2e-10 : 1e-15)));
        expect(r.scale / (Math.sqrt(n) * one)).toBeLessThan(1 + 1e-9);
        expect(r.explanation).toMatch(new RegExp(`^For ${n} releases of the same value, together`));
      }
    }
    const r = calibrate(collapse, { mechanism: 'gaussian', method: 'exact', alpha: 2, epsilon: 1, releases: 4 });
    const [p, q] = [collapse.priors[0].conditionals.P, collapse.priors[0].conditionals.Q];
    expect(exactRenyi(q, p, noiseOf('gaussian', r.scale / 2), 2).value).toBeLessThanOrEqual(1);
  });

  it('Laplace, two releases: every method’s b keeps the true joint D_α (independent 2-D quadrature) within ε; one release’s b does not', () => {
    const s = pairScenario(fromCounts([0, 1], [1, 1]), fromCounts([0, 2], [1, 4]));
    const [p, q] = [s.priors[0].conditionals.P, s.priors[0].conditionals.Q];
    const alpha = 2,
      epsilon = 0.5;
    const lap = (b: number) => noiseOf('laplace' as const, b);
    const worst = (b: number) => {
      const both = twoReleaseRenyiAt(p, q, lap(b), lap(b), [alpha]);
      return Math.max(both.pq[0], both.qp[0]);
    };
    for (const method of ['theorem', 'pierquin', 'wasserstein-inf', 'coupled'] as const) {
      const b = calibrate(s, { mechanism: 'laplace', method, alpha, epsilon, releases: 2 }).scale;
      expect(worst(b), method).toBeLessThanOrEqual(epsilon * (1 + 1e-9));
    }
    // The tightest single-release bound is not enough for two releases.
    const single = calibrate(s, { mechanism: 'laplace', method: 'exact', alpha, epsilon }).scale;
    expect(worst(single)).toBeGreaterThan(epsilon);
    // And the quadrature agrees with the certified engine where both apply (one release = N = 1 check of the method).
    const coupled2 = calibrate(s, { mechanism: 'laplace', method: 'coupled', alpha, epsilon, releases: 2 }).scale;
    expect(coupled2).toBeGreaterThan(single);
  });

  it('refuses what it cannot certify for several releases, naming what applies', () => {
    const refuse = (st: CalibrationSettings, why: RegExp) => {
      let err: unknown;
      try {
        calibrate(collapse, st);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).message).toMatch(why);
    };
    // Two Laplace releases are exact on ℝ² (docs/math.md §9); three would need a 3-dimensional integral.
    refuse({ mechanism: 'laplace', method: 'exact', alpha: 2, epsilon: 1, releases: 3 }, /3-dimensional integral; coupled is the tightest/);
    expect(calibrate(collapse, { mechanism: 'laplace', method: 'exact', alpha: 2, epsilon: 1, releases: 2 }).scale).toBeGreaterThan(0);
    refuse(
      { mechanism: 'laplace', method: 'theorem', alpha: 0.5, epsilon: 1, releases: 2 },
      /Proposition 1 covers one release; for several use wasserstein-inf/,
    );
    refuse({ mechanism: 'exponential', method: 'theorem', alpha: 2, epsilon: 1, releases: 2 }, /Corollary 1 covers one release/);
    refuse({ mechanism: 'laplace', method: 'best', alpha: 2, epsilon: 1, releases: 0 }, /^releases: must be a whole number from 1/);
    refuse({ mechanism: 'laplace', method: 'best', alpha: 2, epsilon: 1, releases: 2.5 }, /^releases: must be a whole number/);
    // best leaves exact out for Laplace and says which method won.
    expect(calibrate(collapse, { mechanism: 'laplace', method: 'best', alpha: 2, epsilon: 1, releases: 3 }).winner).toBe('coupled');
  });

  it('release --count N is calibrated for the N releases together; per-release calibration is asked for and says it does not compose', () => {
    const s = builtinScenario('heart');
    const st = { mechanism: 'gaussian', method: 'exact', alpha: 2, epsilon: 1 } as const;
    const joint = release(s, st, 1.4, { count: 4, random: seededSource(1n) });
    const each = release(s, st, 1.4, { count: 4, random: seededSource(1n), perRelease: true });
    expect(joint.scale).toBeGreaterThanOrEqual(2 * each.scale * (1 - 1e-15));
    expect(joint.guarantee).toMatch(/of the 4 releases together/);
    expect(each.guarantee).toMatch(/each of the 4 releases alone, not for them together/);
    expect(() => release(s, st, 1.4, { count: 2, truncate: [0, 7] })).toThrow(/count: 2 truncated releases cannot be accounted together/);
  });

  it('CLI: calibrate --releases, a spec "releases" field, and bad values', () => {
    const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
    const run = (...a: string[]) => spawnSync(process.execPath, [BIN, ...a], { encoding: 'utf8' });
    const one = JSON.parse(run('calibrate', '--scenario', 'heart', '--mechanism', 'gaussian', '--method', 'exact', '--json').stdout).results[0];
    const four = JSON.parse(run('calibrate', '--scenario', 'heart', '--mechanism', 'gaussian', '--method', 'exact', '--releases', '4', '--json').stdout)
      .results[0];
    expect(one.releases).toBeUndefined();
    expect(four.releases).toBe(4);
    expect(four.scale).toBeGreaterThanOrEqual(2 * one.scale * (1 - 1e-15));
    expect(four.scale / (2 * one.scale)).toBeLessThan(1 + 1e-9);
    for (const bad of ['0', '2.5', 'x', '-1']) {
      const r = run('calibrate', '--scenario', 'heart', '--releases', bad);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^error: --releases: must be a whole number/);
    }
    const f = join(mkdtempSync(join(tmpdir(), 'rel-')), 'spec.json');
    writeFileSync(
      f,
      JSON.stringify({
        priors: [{ name: 'p', conditionals: { a: { values: [0, 1], counts: [3, 1] }, b: { values: [0, 1], counts: [1, 3] } } }],
        mechanism: 'laplace',
        alpha: 2,
        epsilon: 0.5,
        releases: 3,
      }),
    );
    const t = run('release', '--spec', f, '--value', '1', '--json');
    expect(t.status).toBe(0);
    const j = JSON.parse(t.stdout);
    expect(j.values).toHaveLength(3);
    expect(j.guarantee).toMatch(/of the 3 releases together/);
    writeFileSync(
      f,
      JSON.stringify({ priors: [{ name: 'p', conditionals: { a: { values: [0], counts: [1] }, b: { values: [1], counts: [1] } } }], releases: 0 }),
    );
    expect(run('calibrate', '--spec', f).stderr).toMatch(/^error: spec\.releases: must be a whole number ≥ 1/);
  });
});

describe('audit --releases', () => {
  it('passes the scale calibrated for N releases and fails the one-release scale, for the N releases together', () => {
    const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
    const run = (...a: string[]) => spawnSync(process.execPath, [BIN, ...a], { encoding: 'utf8' });
    const scale = (n: number) =>
      JSON.parse(run('calibrate', '--scenario', 'heart', '--mechanism', 'gaussian', '--method', 'exact', '--releases', String(n), '--json').stdout).results[0]
        .scale;
    // Printed scales round up, so the CLI's JSON number (exact double) is used as is.
    const four = run('audit', '--scenario', 'heart', '--mechanism', 'gaussian', '--scale', String(scale(4)), '--releases', '4', '--json');
    expect(four.status).toBe(0);
    const j = JSON.parse(four.stdout);
    expect(j.releases.n).toBe(4);
    expect(j.releases.rows[0].divergence).toBeLessThanOrEqual(1);
    expect(j.verdict).toBe('pass');
    const one = run('audit', '--scenario', 'heart', '--mechanism', 'gaussian', '--scale', String(scale(1)), '--releases', '4');
    expect(one.status).toBe(1);
    expect(one.stdout).toMatch(/4 releases of the same value together/);
    expect(one.stdout).toMatch(/verdict: fail/);
  });
});

describe('progress', () => {
  it('the driver reports every unit, in order, across all methods of best', () => {
    const s = builtinScenario('heart');
    const seen: [number, number][] = [];
    calibrate(s, { mechanism: 'laplace', method: 'best', alpha: 2, epsilon: 1 }, { onProgress: (d, t) => seen.push([d, t]) });
    const total = seen[0][1];
    expect(seen.map(([d]) => d)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(seen.every(([, t]) => t === total)).toBe(true);
  });

  it('CLI: a bar and the elapsed time on a terminal once the work runs past its threshold; nothing on a pipe', () => {
    const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
    const priors = Array.from({ length: 24 }, (_, i) => ({
      name: `p${i}`,
      conditionals: {
        a: { values: [0, 1, 2, 3, 4, 5, 6, 7].map((v) => v + i / 1000), counts: [5, 3, 2, 1, 1, 2, 3, 4] },
        b: { values: [0, 1, 2, 3, 4, 5, 6, 7], counts: [1, 2, 3, 5, 4, 3, 2, 1] },
      },
    }));
    const f = join(mkdtempSync(join(tmpdir(), 'prog-')), 'many.json');
    writeFileSync(f, JSON.stringify({ priors, alpha: 2, epsilon: 1 }));
    const args = [BIN, 'calibrate', '--spec', f, '--mechanism', 'gaussian', '--method', 'exact'];
    // The bar's threshold at 0 ms: on a pipe it would show at once, were pipes not excluded.
    const now = { ...process.env, PUFFERFISH_PROGRESS_AFTER_MS: '0' };
    const piped = spawnSync(process.execPath, args, { encoding: 'utf8', env: now });
    expect(piped.status).toBe(0);
    expect(piped.stderr).toBe('');
    // A pipe gets a line per period instead (every 0 ms here: a line per update, then the time).
    const lines = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...now, PUFFERFISH_PROGRESS_EVERY_MS: '0' } });
    expect(lines.status).toBe(0);
    expect(lines.stderr).toMatch(/^calibrate: \d+\/24 units \(\d+%\), \d+\.\d s/m);
    expect(lines.stderr).toMatch(/calibrate: done in \d+\.\d s\n$/);
    // util-linux `script` gives the command a pseudo-terminal.
    const onTerminal = (env: NodeJS.ProcessEnv) =>
      spawnSync('script', ['-qec', [process.execPath, ...args].map((a) => `'${a}'`).join(' '), '/dev/null'], { encoding: 'utf8', env });
    const tty = onTerminal(now);
    expect(tty.status).toBe(0);
    expect(tty.stdout).toMatch(/calibrate \[[█░]+\] \d+\/24/);
    expect(tty.stdout).toMatch(/calibrate: done in \d+\.\d s/);
    // Work that ends before the threshold (an hour here: no timing in the test) prints no bar on a terminal either.
    const quick = onTerminal({ ...process.env, PUFFERFISH_PROGRESS_AFTER_MS: '3600000' });
    expect(quick.status).toBe(0);
    expect(quick.stdout).not.toMatch(/\[[█░]+\]|done in/);
  });

  it("a statistic's release says each group's calibration on a pipe, and nothing with --json", () => {
    const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
    const heart = [
      '--data',
      'test/fixtures/uci/heart-disease/processed.cleveland.data.gz',
      '--query',
      'mean:chol',
      '--secret-column',
      'fbs',
      '--group-by',
      'sex',
    ];
    const env = { ...process.env, PUFFERFISH_PROGRESS_EVERY_MS: '0' };
    const lines = spawnSync(process.execPath, [BIN, 'release', ...heart], { encoding: 'utf8', env });
    expect(lines.status).toBe(0);
    expect(lines.stderr).toMatch(/^release: \d+\/\d+ units \(\d+%\), \d+\.\d s — calibrating group 1 of 2$/m);
    expect(lines.stderr).toMatch(/— calibrating group 2 of 2\n(.*\n)*release: done in \d+\.\d s\n$/);
    const json = spawnSync(process.execPath, [BIN, 'release', ...heart, '--json'], { encoding: 'utf8', env });
    expect(json.status).toBe(0);
    expect(json.stderr).toBe('');
  });
});

describe('mutual information of repeated releases', () => {
  it('Gaussian: N releases are one at σ/√N (mi-exact and mi-variance); Laplace is refused naming why', async () => {
    const { calibrateMI } = await import('../src/mi/calibrate.js');
    const heart = builtinScenario('heart');
    for (const method of ['mi-exact', 'mi-variance'] as const) {
      const one = calibrateMI(heart, { mechanism: 'gaussian', method, epsilon: 0.001 }).scale;
      const four = calibrateMI(heart, { mechanism: 'gaussian', method, epsilon: 0.001, releases: 4 });
      expect(four.releases).toBe(4);
      expect(four.scale).toBeGreaterThanOrEqual(2 * one * (1 - 1e-12));
      // Up to the search's resolution of the certified MI enclosure (its ends move with the scale at ~1e-9).
      expect(four.scale / (2 * one)).toBeLessThan(1 + 1e-7);
    }
    expect(() => calibrateMI(heart, { mechanism: 'laplace', method: 'best', epsilon: 0.001, releases: 2 })).toThrow(
      /^releases: mutual information of 2 releases is accounted for Gaussian noise only/,
    );
  });
});
