import { describe, expect, it } from 'vitest';
import { audit } from '../src/audit/audit.js';
import { auditReport } from '../src/audit/report.js';
import { rdpToDpEq5, rdpToDpSharp } from '../src/audit/conversion.js';
import { calibrate } from '../src/calibrate/calibrate.js';
import { builtinScenario } from '../src/scenarios/builtin.js';
import { scenarioFromSpec } from '../src/spec/load.js';
import type { Discrete } from '../src/distribution/discrete.js';
import { runInProcess as inProcess } from './inProcess.js';

describe('conversions to (ε′, δ)', () => {
  it('eq. (5) and the sharper conversion; the sharper one is never worse', () => {
    expect(rdpToDpEq5(1, 2, Math.exp(-3))).toBeCloseTo(4, 14);
    for (const a of [1.1, 2, 10, 100])
      for (const d of [1e-3, 1e-6, 1e-10]) {
        expect(rdpToDpSharp(0.5, a, d)).toBeLessThanOrEqual(rdpToDpEq5(0.5, a, d));
      }
  });
});

describe('audit', () => {
  it('at the exact-calibrated scale the binding direction has slack ≈ 0 and none is negative', () => {
    const s = builtinScenario('student-mat');
    const r = calibrate(s, { mechanism: 'gaussian', method: 'exact', alpha: 3, epsilon: 0.5 });
    const rows = audit(s, { mechanism: 'gaussian', scale: r.scale, alphas: [3], epsilon: 0.5, delta: 1e-6 });
    expect(rows).toHaveLength(2); // both directions
    expect(Math.min(...rows.map((x) => x.slack))).toBeGreaterThanOrEqual(0);
    expect(Math.min(...rows.map((x) => x.slack))).toBeLessThan(1e-6);
    expect(rows[0].pufferfishEpsilon).toBeNull();
  });

  it('Laplace: the α = ∞ row is the ε-PP level, and D_α grows with α up to it', () => {
    const rows = audit(builtinScenario('heart'), { mechanism: 'laplace', scale: 0.8, alphas: [1.5, 3, 10, Infinity], epsilon: 1, delta: 1e-6 });
    const dir = rows.filter((x) => x.direction[0] === '0');
    for (let i = 1; i < dir.length; i++) expect(dir[i].divergence).toBeGreaterThanOrEqual(dir[i - 1].divergence);
    // The stated level is the α = ∞ row's certified bound (value + error), rounded up.
    expect(dir[0].pufferfishEpsilon).toBeGreaterThan(dir[3].divergence + dir[3].error);
    expect(dir[0].pufferfishEpsilon).toBeLessThan((dir[3].divergence + dir[3].error) * (1 + 1e-15));
  });

  it('Gaussian noise at α < 1 with rows over ε: a verdict, not a refusal (no calibration condition exists there to certify by)', async () => {
    const scenario = scenarioFromSpec({
      name: 'apart',
      priors: [{ name: 'p', conditionals: { a: { values: [0, 1], weights: [1, 1] }, b: { values: [5, 6], weights: [1, 3] } } }],
    }).scenario;
    const r = await auditReport(scenario, { mechanism: 'gaussian', scale: 1, alphas: [0.5], epsilon: 0.1, delta: 1e-6 });
    expect(r.over).toBe(2);
    expect(r.certified).toEqual([]);
    const cli = await inProcess('audit', '--scenario', 'heart', '--mechanism', 'gaussian', '--scale', '0.01', '--alpha', '0.5', '--epsilon', '0.001');
    expect(cli.stderr).toBe('');
    expect(cli.status).toBe(1);
    expect(cli.stdout.trim().split('\n').pop()).toMatch(/^verdict: fail/);
  });

  it('the stated ε-PP level is never below the true D∞, where log p − log q of nearly equal laws loses digits', () => {
    // Two laws on one support, a few 1e-7 apart: D∞ ≈ 3.6e-4, and log p(y) − log q(y) rounds it down by ~2e-16.
    const law = (w: number[]) => ({ values: [6.6, 7.75, 2], weights: w });
    const [P, Q] = [law([0.5, 3, 2]), law([0.5000005, 3.0000029999999995, 2.002])];
    const scenario = scenarioFromSpec({ name: 'near', priors: [{ name: 'p', conditionals: { s0: P, s1: Q } }] }).scenario;
    const b = 0.5;
    // The true level, without the cancellation: Laplace's sup is at an atom (docs/math.md §4), and at
    // each atom log(p/q) = log1p(Σ(pᵢ − qᵢ)kᵢ / Σ qᵢkᵢ) with the differences of the loaded masses exact.
    const truth = (p: Discrete, q: Discrete) =>
      Math.max(
        ...p.values.map((y) => {
          const k = p.values.map((x) => Math.exp(-Math.abs(y - x) / b));
          const diff = k.reduce((a, ki, i) => a + (p.masses[i] - q.masses[i]) * ki, 0);
          return Math.log1p(diff / k.reduce((a, ki, i) => a + q.masses[i] * ki, 0));
        }),
      );
    const { s0, s1 } = scenario.priors[0].conditionals;
    const rows = audit(scenario, { mechanism: 'laplace', scale: b, alphas: [2], epsilon: 1, delta: 1e-6 });
    const level = (from: string) => rows.find((r) => r.direction[0] === from)!.pufferfishEpsilon!;
    expect(level('s0')).toBeGreaterThanOrEqual(truth(s0, s1));
    expect(level('s1')).toBeGreaterThanOrEqual(truth(s1, s0));
    expect(level('s0')).toBeLessThan(truth(s0, s1) + 1e-12);
  });

  it('CLI: table, JSON mirror, and bad input', async () => {
    const t = await inProcess('audit', '--scenario', 'heart', '--scale', '0.8', '--alpha', '2,inf');
    expect(t.status).toBe(0);
    expect(t.stdout).toMatch(/D_α\s+± error\s+slack\s+ε′ eq\.\(5\)\s+ε′ sharp\s+ε-PP/);
    const j = JSON.parse((await inProcess('audit', '--scenario', 'heart', '--scale', '0.8', '--alpha', '2,inf', '--json')).stdout);
    expect(j.rows).toHaveLength(4);
    expect(j.rows[1].alpha).toBe('inf');
    for (const [args, msg] of [
      [['--scenario', 'heart'], /^error: --scale: is required/],
      [['--scenario', 'heart', '--scale', '-1'], /^error: --scale: must be a finite number ≥ 0/],
      [['--scenario', 'heart', '--scale', '1', '--delta', '2'], /^error: --delta: must be in \(0, 1\)/],
      [['--scenario', 'heart', '--scale', '1', '--alpha', '1'], /^error: --alpha: α must be > 0 and ≠ 1/],
      [['--scenario', 'heart', '--scale', '1', '--mechanism', 'gaussian', '--alpha', 'inf'], /^error: --alpha: Gaussian noise has no finite/],
    ] as [string[], RegExp][]) {
      const r = await inProcess('audit', ...args);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(msg);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('ends with a verdict: exit 0 on pass, 1 on fail (rows over ε); JSON carries it', async () => {
    const pass = await inProcess('audit', '--scenario', 'heart', '--scale', '3', '--alpha', '2,inf');
    expect(pass.status).toBe(0);
    expect(pass.stdout.trim().split('\n').pop()).toBe('verdict: pass');
    const fail = await inProcess('audit', '--scenario', 'heart', '--scale', '0.1', '--alpha', '2,inf');
    expect(fail.status).toBe(1);
    expect(fail.stdout.trim().split('\n').pop()).toMatch(/^verdict: fail \(\d+ rows? over ε\)$/);
    const j = await inProcess('audit', '--scenario', 'heart', '--scale', '0.1', '--alpha', '2', '--json');
    expect(j.status).toBe(1);
    const out = JSON.parse(j.stdout);
    expect(out.verdict).toBe('fail');
    expect(out.over).toBe(out.rows.filter((r: { slack: number }) => r.slack < 0).length);
    expect(out.over).toBeGreaterThan(0);
  });

  it('scale 0 audits the data itself; tiny scales never print −∞, NaN or negative divergences', async () => {
    const zero = JSON.parse((await inProcess('audit', '--scenario', 'adult', '--scale', '0', '--alpha', '2', '--json')).stdout);
    expect(zero.verdict).toBe('pass');
    for (const r of zero.rows) expect(r.certificate).toBe('data-processing');
    const tiny = await inProcess('audit', '--scenario', 'heart', '--scale', '1e-18', '--alpha', '2,0.5', '--json');
    expect(tiny.status).toBe(1);
    for (const r of JSON.parse(tiny.stdout).rows) {
      expect(r.divergence).not.toBeNull(); // JSON has no NaN/∞: non-finite values are written as text
      if (r.divergence !== 'inf') expect(r.divergence).toBeGreaterThanOrEqual(0);
      expect(Number.isNaN(r.error)).toBe(false);
    }
    expect((await inProcess('audit', '--scenario', 'heart', '--scale', '1e-18', '--alpha', '2,0.5')).stdout).not.toMatch(/NaN|-Infinity/);
  });

  it('the largest scales audit as nearly no divergence, never ∞ or NaN (log 2b where 2b overflows)', () => {
    // (Exponential and Gaussian noise at the very largest double give an infinite error bar: a
    // verdict of fail, never a false pass.)
    for (const [mechanism, scale] of [
      ['laplace', 1e308],
      ['laplace', Number.MAX_VALUE],
      ['exponential', 1e308],
    ] as const) {
      const rows = audit(builtinScenario('heart'), { mechanism, scale, alphas: [2, Infinity], epsilon: 1, delta: 1e-6 });
      for (const r of rows) {
        expect(r.divergence + r.error, `${mechanism} b=${scale} α=${r.alpha}`).toBeLessThan(1e-9);
        expect(r.pufferfishEpsilon).not.toBeNaN();
        expect(r.pufferfishEpsilon!).toBeLessThan(1e-9);
      }
    }
  });
});

describe('progress of an audit', () => {
  it('reports the empirical test pair by pair, named, after the certified rows', async () => {
    const three = scenarioFromSpec({
      name: 'three',
      priors: [
        {
          name: 'p',
          conditionals: { a: { values: [0, 1], weights: [1, 1] }, b: { values: [0, 2], weights: [1, 2] }, c: { values: [1, 3], weights: [2, 1] } },
        },
      ],
    }).scenario;
    const steps: [number, number, string | undefined][] = [];
    const s = { mechanism: 'laplace' as const, scale: 5, alphas: [2], epsilon: 1, delta: 1e-6, empirical: { samples: 2000, level: 1e-3 } };
    await auditReport(three, s, { onProgress: (done, total, step) => steps.push([done, total, step]) });
    const sampled = steps.filter(([, , step]) => step === 'empirical test');
    expect(sampled).toEqual([
      [0, 3, 'empirical test'],
      [1, 3, 'empirical test'],
      [2, 3, 'empirical test'],
    ]);
    // The certified rows come first, unnamed.
    expect(steps.slice(0, steps.length - 3).every(([, , step]) => step === undefined)).toBe(true);
    expect(steps.length).toBeGreaterThan(3);
  });
});
