import { noiseOf } from '../mechanisms/kernels.js';
import { describe, expect, it } from 'vitest';
import { fromCounts } from '../distribution/discrete.js';
import { NumericalError } from '../errors.js';
import { bracketAbove, bracketBelow, bracketPredict } from '../numerics/bracket.js';
import { isFeasible, smallestFeasibleScale, type Evaluation, type ScaleProblem } from '../numerics/smallestScale.js';
import { exactRenyi } from '../divergence/exactRenyi.js';
import { builtinScenario } from '../scenarios/builtin.js';
import { calibrate } from './calibrate.js';
import { bestOf, solveUnits } from './driver.js';
import { calibrateFor } from '../api/guarantee.js';
import type { Scenario } from '../distribution/scenario.js';

/** value = c/s ≤ 1: feasible from s = c on. */
const inverse = (c: number): ScaleProblem => ({
  evaluate: (s): Evaluation => ({ value: c / s, error: 0, target: 1, sense: 'le' }),
  lower: c / 2,
  upper: 2 * c,
});

describe('calibration driver', () => {
  it('lifts the common scale by a few ulps where a unit rounds infeasible just above its own scale, never lowering it (Cor. 3.1 on two W∞ an ulp apart)', () => {
    // Unit b holds from 1.5 on except at exactly 3 (a rounding glitch); unit a's own scale is 3.
    const glitchy: ScaleProblem = {
      evaluate: (s): Evaluation => ({ value: s >= 1.5 && s !== 3 ? 0 : 2, error: 0, target: 1, sense: 'le' }),
      lower: 1,
      upper: 4,
    };
    const sol = solveUnits(
      [
        { label: 'a', problem: inverse(3) },
        { label: 'b', problem: glitchy },
      ],
      String,
    );
    expect(sol.top.label).toBe('a');
    expect(sol.scale).toBeGreaterThan(3);
    expect(sol.scale).toBeLessThan(3 * (1 + 1e-14));
    expect(isFeasible(glitchy.evaluate(sol.scale)) && isFeasible(inverse(3).evaluate(sol.scale))).toBe(true);
  });
  it('takes the largest unit, says which, and keeps "no noise" as a reason', () => {
    const sol = solveUnits(
      [
        { label: 'a', problem: inverse(1) },
        { label: 'b', problem: inverse(3) },
        { label: 'c', problem: { zero: 'identical' } },
      ],
      String,
    );
    expect(sol.top.label).toBe('b');
    expect(sol.scale).toBeGreaterThanOrEqual(3);
    expect(sol.scale).toBeLessThan(3 * (1 + 1e-12));
    expect(sol.units.map((u) => u.zeroReason)).toEqual([undefined, undefined, 'identical']);
    expect(sol.check?.value).toBeLessThanOrEqual(1);
    const none = solveUnits([{ label: 'x', problem: { zero: 'data already meets ε' } }], String);
    expect(none).toMatchObject({ scale: 0, check: null });
  });

  it('largest only: the same maximum as searching every unit, the others checked there and reported at most it', () => {
    const cs = Array.from({ length: 300 }, (_, i) => 1 + ((i * 7919) % 300) / 10);
    let searched = 0;
    const counted = (c: number): ScaleProblem => {
      const p = inverse(c);
      return {
        ...p,
        get lower() {
          searched++;
          return p.lower;
        },
      };
    };
    const units = cs.map((c, i) => ({ label: i, problem: () => counted(c), holdsAt: (s: number) => c / s <= 1 }));
    const all = solveUnits(
      cs.map((c, i) => ({ label: i, problem: inverse(c) })),
      String,
    );
    const largest = solveUnits(units, String, undefined, undefined, undefined, true);
    expect(largest.scale).toBe(all.scale);
    expect(largest.top.label).toBe(all.top.label);
    expect(largest.units.filter((u) => u.atMost).length).toBeGreaterThan(250);
    expect(largest.units.every((u) => u.scale <= largest.scale && (u.atMost ? u.scale === largest.scale : true))).toBe(true);
    expect(searched).toBeLessThan(40);
  });

  it('re-checks every unit at the common scale: a unit that fails there is an error, not a silent leak', () => {
    // Feasible only on [1, 2]: certified alone at 1, but it fails at the other unit's scale 3.
    const window: ScaleProblem = { evaluate: (s) => ({ value: s >= 1 && s <= 2 ? 0 : 2, error: 0, target: 1, sense: 'le' }), lower: 0.5, upper: 1.5 };
    expect(() =>
      solveUnits(
        [
          { label: 'window', problem: window },
          { label: 'wide', problem: inverse(3) },
        ],
        (l) => `unit ${l}`,
      ),
    ).toThrow(NumericalError);
    expect(() =>
      solveUnits(
        [
          { label: 'window', problem: window },
          { label: 'wide', problem: inverse(3) },
        ],
        (l) => `unit ${l}`,
      ),
    ).toThrow(/re-check failed for unit window/);
  });

  it('brackets: halving from a feasible scale, optionally following the last feasible one', () => {
    const ev = inverse(5).evaluate;
    expect(bracketBelow(ev, 64)).toEqual({ lower: 4, upper: 64 });
    expect(bracketBelow(ev, 64, { tighten: true })).toEqual({ lower: 4, upper: 8 });
    expect(bracketAbove(ev, 1, 'test')).toBe(8);
    expect(() => bracketAbove(() => ({ value: 2, error: 0, target: 1, sense: 'le' }), 1, 'never')).toThrow(/never: no scale meets ε/);
    const { lower, upper } = bracketBelow(ev, 64, { tighten: true });
    expect(smallestFeasibleScale({ evaluate: ev, lower, upper }).scale).toBeCloseTo(5, 12);
  });

  it('bracketPredict + log–log Brent: the certified root in fewer evaluations than halving + Brent', () => {
    // value = c·s^{−k}, or a slope that changes from 2 (far out) to 1 (near the data), as exact D_α does.
    const shapes: [string, (s: number) => number, number][] = [
      ['1/s', (s) => 0.3 / s, 0.3],
      ['1/s²', (s) => 0.04 / (s * s), 0.2],
      ['mixed', (s) => 1 / (s * (1 + s)), (-1 + Math.sqrt(5)) / 2],
      ['flat then steep', (s) => Math.min(5, 1e-3 / s ** 6), 1e-3 ** (1 / 6)],
    ];
    for (const [name, f, root] of shapes) {
      // Costly evaluations are remembered (as the exact accountant does): count distinct scales.
      let calls = 0;
      let seen = new Map<number, Evaluation>();
      const ev = (s: number): Evaluation => {
        const hit = seen.get(s);
        if (hit) return hit;
        calls++;
        const e: Evaluation = { value: f(s), error: 1e-12, target: 1, sense: 'le' };
        seen.set(s, e);
        return e;
      };
      const { lower, upper } = bracketPredict(ev, 500);
      expect(isFeasible(ev(lower)), name).toBe(false);
      expect(isFeasible(ev(upper)), name).toBe(true);
      expect(lower < root && root <= upper, name).toBe(true);
      calls = 0;
      seen = new Map();
      const fast = smallestFeasibleScale({ evaluate: ev, ...bracketPredict(ev, 500), rtol: 1e-10, logLog: true });
      const used = calls;
      calls = 0;
      seen = new Map();
      const slow = smallestFeasibleScale({ evaluate: ev, ...bracketBelow(ev, 500, { tighten: true }), rtol: 1e-10 });
      expect(fast.scale / root, name).toBeCloseTo(1, 9);
      expect(slow.scale / root, name).toBeCloseTo(1, 9);
      expect(isFeasible(fast.check), name).toBe(true);
      expect(used, name).toBeLessThan(calls);
      if (name !== 'flat then steep') expect(used, name).toBeLessThanOrEqual(9);
    }
    // No slope to model (the condition holds at every scale): halving takes over, as before.
    const always = (): Evaluation => ({ value: 0, error: 0, target: 1, sense: 'le' });
    expect(isFeasible(always())).toBe(true);
    expect(bracketPredict(always, 8).lower).toBeLessThan(1e-15);
  });

  it('bracketPredict steps at most a factor 16 below a flat secant (the data’s own divergence showing before a steep rise)', () => {
    // Flat near 0.012 from 2 down to about 0.1, then steep: the power law through the flat part predicts
    // σ ≈ 10⁻⁹; a factor 1024 lands where a chain's atoms are thousands of σ apart (the costliest quadratures).
    const f = (s: number) => Math.max(0.012 * (1 + 1e-3 / s), (0.1 / s) ** 8);
    const asked: number[] = [];
    const ev = (s: number): Evaluation => {
      asked.push(s);
      return { value: f(s), error: 1e-12, target: 1, sense: 'le' };
    };
    const { lower, upper } = bracketPredict(ev, 2);
    expect(lower < 0.1 && 0.1 <= upper).toBe(true);
    for (let k = 1; k < asked.length; k++) expect(asked[k]).toBeGreaterThanOrEqual(Math.min(...asked.slice(0, k)) / 16);
    expect(Math.min(...asked)).toBeGreaterThan(0.1 / 16);
  });

  it('best is the first smallest', () => {
    expect(
      bestOf([
        { m: 'a', scale: 2 },
        { m: 'b', scale: 1 },
        { m: 'c', scale: 1 },
      ]).m,
    ).toBe('b');
  });
});

describe('guarantees as data', () => {
  const heart = builtinScenario('heart');
  const tiny: Scenario = { name: 't', priors: [{ name: 'p', conditionals: { a: fromCounts([0, 1], [3, 1]), b: fromCounts([0, 1], [1, 3]) } }] };
  it('Rényi through the one entry equals calibrate', () => {
    const r = calibrateFor(heart, { kind: 'renyi', alpha: 2, epsilon: 1 }, { mechanism: 'laplace', method: 'theorem' });
    expect(r).toEqual(calibrate(heart, { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 }));
  });
  it('MI results are typed apart: no α, priors (not pairs) as units, binding names the secrets', () => {
    const r = calibrateFor(heart, { kind: 'mi', epsilon: 0.001 }, { mechanism: 'gaussian', method: 'mi-variance' });
    expect(r.guarantee).toBe('mi');
    expect('alpha' in r).toBe(false);
    expect('pairs' in r).toBe(false);
    expect(r.priors.map((p) => p.prior)).toEqual(heart.priors.map((p) => p.name));
    expect(r.binding?.secrets).toEqual(Object.keys(heart.priors[0].conditionals));
  });
  it('truncated Rényi through the one entry; a method a guarantee does not have is refused by name', () => {
    const t = calibrateFor(tiny, { kind: 'truncated-renyi', alpha: 2, epsilon: 1, interval: [-1, 2] }, { mechanism: 'laplace' });
    expect(t.scale).toBeGreaterThan(0);
    expect(t.binding).toEqual({ prior: 'p', pair: ['a', 'b'] });
    expect(() => calibrateFor(tiny, { kind: 'mi', epsilon: 0.1 }, { mechanism: 'laplace', method: 'theorem' })).toThrow(
      /method: unknown method 'theorem' for this guarantee \(one of mi-exact, mi-variance, best\)/,
    );
  });
});

describe('(ε, δ) targets through the best Rényi order', () => {
  const heart = builtinScenario('heart');
  it('meets (ε, δ) by the sharper conversion at the reported α, and is the smallest scale over the α grid', async () => {
    const { calibrateEpsDelta, renyiBudgetFor } = await import('./epsDelta.js');
    const { rdpToDpSharp } = await import('../audit/conversion.js');
    const alphas = [1.5, 2, 4, 8, 16, 32];
    for (const mechanism of ['laplace', 'gaussian'] as const) {
      const r = calibrateEpsDelta(heart, { mechanism, method: 'coupled', epsilon: 1, delta: 1e-6, alphas });
      expect(alphas).toContain(r.alpha);
      // Calibrated (certified) for a Rényi budget that converts to ≤ ε at δ; the exact D_α there is within it.
      expect(isFeasible(r.check!)).toBe(true);
      expect(rdpToDpSharp(r.renyiEpsilon, r.alpha, 1e-6)).toBeLessThanOrEqual(1);
      const [p, q] = Object.values(heart.priors[0].conditionals);
      for (const [a, b] of [
        [p, q],
        [q, p],
      ])
        expect(exactRenyi(a, b, noiseOf(mechanism, r.scale), r.alpha).value).toBeLessThanOrEqual(r.renyiEpsilon);
      for (const a of alphas) {
        const budget = renyiBudgetFor(1, 1e-6, a);
        if (budget > 0) expect(r.scale).toBeLessThanOrEqual(calibrate(heart, { mechanism, method: 'coupled', alpha: a, epsilon: budget }).scale);
      }
      expect(r.explanation.startsWith(`(ε = 1, δ = 0.000001)-Pufferfish via α = ${r.alpha === Infinity ? '∞' : r.alpha} `)).toBe(true);
    }
    expect(() => calibrateEpsDelta(heart, { mechanism: 'gaussian', method: 'best', epsilon: 1e-3, delta: 1e-12, alphas: [1.5, 2] })).toThrow(
      /no Rényi order \(α in \[1\.5, 2\]\) gives \(ε = 0\.001, δ = 1e-12\) with method best: the orders leave no positive budget/,
    );
    expect(calibrateFor(heart, { kind: 'epsilon-delta', epsilon: 1, delta: 1e-6, alphas }, { mechanism: 'gaussian', method: 'coupled' }).alpha).toBe(
      calibrateEpsDelta(heart, { mechanism: 'gaussian', method: 'coupled', epsilon: 1, delta: 1e-6, alphas }).alpha,
    );
  });
});
