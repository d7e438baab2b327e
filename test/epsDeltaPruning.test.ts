import { describe, expect, it } from 'vitest';
import { calibrate, tooSmall } from '../src/calibrate/calibrate.js';
import { calibrateEpsDelta, calibrateEpsDeltaAsync, epsDeltaBest, epsDeltaTrials } from '../src/calibrate/epsDelta.js';
import type { CalibrationSettings } from '../src/calibrate/rules.js';
import { release } from '../src/release/release.js';
import { builtinScenario } from '../src/scenarios/builtin.js';
import { validateSpec } from '../src/markov/chain.js';
import { markovScenario } from '../src/markov/source.js';
import { twoStateChain } from './chains.js';
import type { Scenario } from '../src/distribution/scenario.js';

describe('(ε, δ) targets: orders that cannot win are passed over, with the same result', () => {
  it('the search on a pool (asynchronous calibrations) asks the same orders and gives the same result', async () => {
    for (const [id, mechanism] of [
      ['heart', 'laplace'],
      ['adult', 'gaussian'],
    ] as const) {
      const scenario = builtinScenario(id);
      const settings = { mechanism, method: 'best' as const };
      const asked: number[][] = [[], []];
      const sync = calibrateEpsDelta(scenario, { ...settings, epsilon: 1, delta: 1e-6 }, (s) => {
        asked[0].push(s.alpha);
        return calibrate(scenario, s);
      });
      const onPool = await calibrateEpsDeltaAsync(scenario, { ...settings, epsilon: 1, delta: 1e-6 }, async (s) => {
        asked[1].push(s.alpha);
        return calibrate(scenario, s);
      });
      expect(onPool).toEqual(sync);
      expect(asked[1]).toEqual(asked[0]);
    }
    // A failing order is thrown where the one-thread search throws it.
    const boom = () => {
      throw new Error('boom');
    };
    const heart = builtinScenario('heart');
    expect(() => calibrateEpsDelta(heart, { mechanism: 'laplace', method: 'best', epsilon: 1, delta: 1e-6, alphas: [16, 32] }, boom)).toThrow('boom');
    await expect(
      calibrateEpsDeltaAsync(heart, { mechanism: 'laplace', method: 'best', epsilon: 1, delta: 1e-6, alphas: [16, 32] }, async () => boom()),
    ).rejects.toThrow('boom');
  });

  it('equals trying every order, and passes over most of them', () => {
    const cases = [
      ['heart', 'gaussian', 1, 1e-6],
      ['student-mat', 'gaussian', 0.5, 1e-9],
      ['heart', 'laplace', 1, 1e-6],
    ] as const;
    for (const [id, mechanism, epsilon, delta] of cases) {
      const scenario = builtinScenario(id);
      const settings = { mechanism, method: 'best' as const };
      const trials = epsDeltaTrials(settings, epsilon, delta);
      const every = epsDeltaBest(
        trials,
        trials.map((t) => calibrate(scenario, t.settings)),
        epsilon,
        delta,
        'best',
      );
      let calls = 0;
      const pruned = calibrateEpsDelta(scenario, { ...settings, epsilon, delta }, (s: CalibrationSettings) => {
        calls++;
        return calibrate(scenario, s);
      });
      expect(pruned, `${id} ${mechanism} ε=${epsilon} δ=${delta}`).toEqual(every);
      // Gaussian noise: the best order is among the first few and the later ones are passed over;
      // Laplace noise: α = ∞, tried first, wins here and the finite orders are passed over.
      expect(calls, `${id} ${mechanism}`).toBeLessThan(trials.length / 2);
    }
  });

  it("a chain's computed laws prune too (their mass-error charged), with the same result as every order", () => {
    const { scenario } = markovScenario(
      validateSpec({
        states: ['a', 'b', 'c'],
        chains: [
          {
            name: 'c',
            transition: [
              [0.8, 0.15, 0.05],
              [0.2, 0.7, 0.1],
              [0.1, 0.3, 0.6],
            ],
            initial: 'stationary',
          },
        ],
        length: 12,
        query: { count: 'b' },
      }),
      'chain',
    );
    const sc = scenario as Scenario;
    for (const method of ['exact', 'best'] as const) {
      const settings = { mechanism: 'laplace' as const, method };
      const trials = epsDeltaTrials(settings, 1, 1e-6);
      const every = epsDeltaBest(
        trials,
        trials.map((t) => calibrate(sc, t.settings)),
        1,
        1e-6,
        method,
      );
      let calls = 0;
      const pruned = calibrateEpsDelta(sc, { ...settings, epsilon: 1, delta: 1e-6 }, (s: CalibrationSettings) => {
        calls++;
        return calibrate(sc, s);
      });
      expect(pruned.scale).toBe(every.scale);
      expect(pruned.alpha).toBe(every.alpha);
      expect(calls).toBeLessThan(trials.length / 2);
    }
  });

  it('a scale is called too small only when the calibration at that order needs more', () => {
    const scenario = builtinScenario('heart');
    let claims = 0;
    for (const mechanism of ['laplace', 'gaussian'] as const)
      for (const alpha of [1.5, 2, 8, 64, Infinity]) {
        if (mechanism === 'gaussian' && alpha === Infinity) continue;
        const s = { mechanism, method: 'best' as const, alpha, epsilon: 0.5 };
        const c = calibrate(scenario, s);
        for (const f of [0.5, 0.9, 0.99, 0.999, 1, 1.01, 2]) {
          const at = c.scale * f;
          if (!tooSmall(scenario, s, at, c.binding!)) continue;
          claims++;
          expect(at, `${mechanism} α=${alpha} ×${f}`).toBeLessThan(c.scale);
        }
        // No claim for methods that do not run the exact accountant, or several releases.
        expect(tooSmall(scenario, { ...s, method: 'theorem' }, c.scale / 2, c.binding!)).toBe(false);
        expect(tooSmall(scenario, { ...s, releases: 2 }, c.scale / 2, c.binding!)).toBe(false);
      }
    expect(claims).toBeGreaterThan(20);
  });

  it("a release's progress moves through the orders passed over and ends full", () => {
    const seen: [number, number][] = [];
    const settings = { mechanism: 'laplace', method: 'exact', alpha: 2, epsilon: 1 } as const;
    release(builtinScenario('heart'), settings, 1.4, { delta: 1e-6, onProgress: (done, total) => seen.push([done, total]) });
    expect(seen.length).toBeGreaterThan(1);
    const total = seen[seen.length - 1][1];
    expect(seen.every(([, t]) => t === total)).toBe(true);
    for (let k = 1; k < seen.length; k++) expect(seen[k][0]).toBeGreaterThanOrEqual(seen[k - 1][0]);
    expect(seen[seen.length - 1][0]).toBe(total);
  });
});

describe("(ε, δ) targets with a chain's own methods", () => {
  it('group DP and the MQM alone: ε-Pufferfish at ε meets (ε, δ), so their α = ∞ scale (they were skipped at every order)', () => {
    const chain = markovScenario(
      twoStateChain(12, { count: 'b' }, [
        [0.9, 0.1],
        [0.2, 0.8],
      ]),
      'c',
    ).scenario as Scenario;
    for (const method of ['group-dp', 'mqm-exact', 'mqm-approx'] as const) {
      const pure = calibrate(chain, { mechanism: 'laplace', method: method as never, alpha: Infinity, epsilon: 1 }).scale;
      const r = calibrateEpsDelta(chain, { mechanism: 'laplace', method, epsilon: 1, delta: 1e-6 });
      // Each order's Rényi budget is below ε (δ = 10⁻⁶): α = ∞, at ε itself, gives the smallest scale.
      expect(r.scale, method).toBe(pure);
      expect(r.alpha, method).toBe(Infinity);
    }
  });
});
