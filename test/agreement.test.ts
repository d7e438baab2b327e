import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { account } from '../src/account/account.js';
import { calibrate, certifiedAt } from '../src/calibrate/calibrate.js';
import { fromCounts } from '../src/distribution/discrete.js';
import type { Scenario } from '../src/distribution/scenario.js';
import { userRecord } from '../src/records.js';
import { audit } from '../src/audit/audit.js';
import { pointLaw, type PointScenario } from '../src/distribution/points.js';

// A calibrated scale passes its own audit and account: random specs through calibrate → audit
// (the certificate calibrate stops on) → account, one and N releases, every mechanism.
const law = fc.array(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 5 })), { minLength: 1, maxLength: 4 });
const priors = fc.array(fc.array(law, { minLength: 2, maxLength: 3 }), { minLength: 1, maxLength: 2 });
const scenarioOf = (ps: [number, number][][][]): Scenario => {
  const k = Math.min(...ps.map((p) => p.length));
  return {
    name: 'random',
    priors: ps.map((p, i) => ({
      name: `p${i}`,
      conditionals: userRecord(
        p.slice(0, k).map(
          (atoms, s) =>
            [
              `s${s}`,
              fromCounts(
                atoms.map((a) => a[0]),
                atoms.map((a) => a[1]),
              ),
            ] as const,
        ),
      ),
    })),
  };
};

describe('calibrate, audit and account agree on a calibrated scale', () => {
  it('scalar: every mechanism, orders, budgets and N releases', () => {
    fc.assert(
      fc.property(
        priors,
        fc.constantFrom('laplace', 'gaussian', 'exponential'),
        fc.constantFrom(1.5, 2, 4, Infinity),
        fc.constantFrom(0.3, 1, 3),
        fc.constantFrom(1, 2, 3),
        (ps, mechanism, alpha, epsilon, releases) => {
          if (mechanism === 'gaussian' && alpha === Infinity) return;
          if (mechanism === 'exponential' && releases > 1) return;
          const s = scenarioOf(ps);
          const settings = { mechanism, alpha, epsilon, ...(releases > 1 ? { releases } : {}) } as const;
          const r = calibrate(s, { ...settings, method: 'best' });
          expect(certifiedAt(s, settings, r.scale).certified, `${mechanism} α=${alpha} ε=${epsilon} N=${releases} b=${r.scale}`).toBe(true);
          if (r.scale === 0 || mechanism === 'exponential' || alpha === Infinity) return;
          // The account reports its own bound: certified ≤ ε where it runs the calibration's
          // condition (one release: exact; N releases: the coupled bound of the coupled winner).
          if (releases > 1 && !['coupled', 'exact'].includes(String(r.winner))) return;
          const acc = account(
            s,
            Array.from({ length: releases }, () => ({ mechanism, scale: r.scale })),
            { alphas: [alpha] },
          );
          expect(acc.rows[0].divergence, `${mechanism} α=${alpha} ε=${epsilon} N=${releases} by ${r.winner}`).toBeLessThanOrEqual(epsilon);
        },
      ),
      { numRuns: 200, seed: 20261201 },
    );
  });

  it('vector: the calibrated scale is met by the audit rows or the calibration certificate, one and N releases', () => {
    const vlaw = fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 4 })), {
      minLength: 1,
      maxLength: 3,
    });
    fc.assert(
      fc.property(
        fc.array(vlaw, { minLength: 2, maxLength: 2 }),
        fc.constantFrom('laplace', 'gaussian'),
        fc.constantFrom(2, 4),
        fc.constantFrom(1, 2),
        (ls, mechanism, alpha, releases) => {
          const s: PointScenario = {
            name: 'v',
            priors: [
              {
                name: 'p',
                conditionals: userRecord(
                  ls.map((atoms, i) => [
                    `s${i}`,
                    pointLaw(
                      atoms.map((a) => [a[0], a[1]]),
                      { counts: atoms.map((a) => a[2]) },
                    ),
                  ]),
                ),
              },
            ],
          };
          const settings = { mechanism, alpha, epsilon: 1, ...(releases > 1 ? { releases } : {}) } as const;
          const r = calibrate(s, { ...settings, method: 'best' });
          if (r.scale === 0) return;
          const rows = audit(s, { mechanism, scale: r.scale, alphas: [alpha], epsilon: 1, delta: 1e-6, releases });
          const again = calibrate(s, { ...settings, method: 'best' });
          // The audit's rule: rows within ε, or the calibration's certificate at a scale ≤ this one.
          expect(rows.every((row) => row.slack >= 0) || again.scale <= r.scale).toBe(true);
          // And the rows are never far off: the certificate and the audit bound differ by rounding only.
          for (const row of rows) expect(row.slack).toBeGreaterThan(-1e-12);
        },
      ),
      { numRuns: 60, seed: 20261201 },
    );
  });
});
