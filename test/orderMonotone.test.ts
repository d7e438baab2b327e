import { describe, expect, it } from 'vitest';
import { calibrate } from '../src/calibrate/calibrate.js';
import { auditReport } from '../src/audit/report.js';
import { builtinScenario } from '../src/scenarios/builtin.js';
import { fromCounts, fromWeights } from '../src/distribution/discrete.js';
import { InputError } from '../src/errors.js';
import type { Scenario } from '../src/distribution/scenario.js';

// D_α ≤ D_∞ at every order: no finite order may need more noise than α = ∞, nor fail where it passes.
const ORDERS = [0.5, 1.5, 2, 10, 1e6, 1e15, 1e100, 1e150];
const issue: Scenario = {
  name: 'issue',
  priors: [{ name: 'p', conditionals: { A: fromCounts([1, 2, 3], [14, 70, 149]), B: fromWeights([1, 2, 3], [0.2, 0.3, 0.5]) } }],
};
const cases: [string, Scenario][] = [
  ['issue', issue],
  ['student-mat', builtinScenario('student-mat') as Scenario],
  ['adult', builtinScenario('adult') as Scenario],
];

describe('order monotonicity (D_α ≤ D_∞)', () => {
  for (const [name, s] of cases)
    for (const mechanism of ['laplace', 'exponential'] as const)
      it(`${name}, ${mechanism}: best's and exact's scale at a finite α is at most their α = ∞ scale, and the audit at the α = ∞ scale passes every order`, async () => {
        // (A paper's rule — Theorem 1, Pierquin, W∞, coupled — is its own condition at α, as published; not monotone in α.)
        for (const method of ['best', 'exact'] as const) {
          const inf = calibrate(s, { mechanism, method, alpha: Infinity, epsilon: 1 }).scale;
          for (const alpha of ORDERS) {
            let at: number;
            try {
              at = calibrate(s, { mechanism, method, alpha, epsilon: 1 }).scale;
            } catch (e) {
              if (e instanceof InputError) continue; // the method has no condition at this order (α < 1)
              throw e;
            }
            expect(at, `${method} at α = ${alpha}`).toBeLessThanOrEqual(inf);
          }
          if (method !== 'best' || inf === 0) continue;
          const r = await auditReport(s, { mechanism, scale: inf, alphas: [...ORDERS, Infinity], epsilon: 1, delta: 1e-6 });
          expect(r.rows.filter((x) => !(x.slack >= 0)).map((x) => `${x.alpha} ${x.certificate} ${x.slack}`)).toEqual([]);
          expect(r.over).toBe(0);
        }
      });
});
