import type { Cost, Eta } from '../conditions/costs.js';
import { checkShape, OBJECT } from '../shapes.js';
import { InputError, unknownName } from '../errors.js';
import { METHODS, type Method } from '../mechanisms/mechanism.js';
import type { Mechanism } from '../mechanisms/registry.js';
import { MI_METHODS, type MiCalibrationResult, type MiMethod } from '../mi/calibrateMI.js';
import { calibrateMI } from '../mi/calibrate.js';
import { calibrateTruncated, type TruncatedCalibration } from '../release/truncated.js';
import { calibrate, type CalibrationResult } from '../calibrate/calibrate.js';
import { calibrateEpsDelta, DEFAULT_DELTA_ALPHAS, ordersProgress, type EpsDeltaResult } from '../calibrate/epsDelta.js';
import type { AnyScenario } from '../distribution/lawKind.js';
import { SOURCE_METHOD_NAMES } from '../distribution/scenario.js';
import type { BoxContamination } from '../calibrate/points.js';
import type { Progress } from '../calibrate/driver.js';

/** What a release promises, as data: each kind has its own calibration and its own typed result. */
export type Guarantee =
  /**
   * (α, ε)-Rényi Pufferfish privacy (α = ∞: ε-Pufferfish), of `releases` releases of the value
   * together, for every prior within `contamination` of the class (docs/math.md §10).
   */
  | { kind: 'renyi'; alpha: number; epsilon: number; releases?: number; contamination?: BoxContamination }
  /** The same for outputs redrawn until they land in `interval` (docs/math.md §5). */
  | { kind: 'truncated-renyi'; alpha: number; epsilon: number; interval: [number, number] }
  /** I(Y; S) ≤ ε nats under every prior (docs/math.md §7). */
  | { kind: 'mi'; epsilon: number; releases?: number }
  /** (ε, δ)-Pufferfish through the best Rényi order of `alphas` (sharper conversion). */
  | { kind: 'epsilon-delta'; epsilon: number; delta: number; alphas?: readonly number[]; releases?: number; contamination?: BoxContamination };

/** The noise to calibrate: family, method (per guarantee) and the exponential mechanism's options. */
export interface NoiseChoice {
  mechanism: Mechanism;
  method?: Method | MiMethod;
  cost?: Cost;
  eta?: Eta;
  /** A vector-valued query: coordinate i's noise is wᵢ times the calibrated scale. */
  coordinateScales?: readonly number[];
}

/** The result type of `calibrateFor` for each kind of guarantee. */
export type GuaranteeResult<G extends Guarantee> = G extends { kind: 'renyi' }
  ? CalibrationResult
  : G extends { kind: 'epsilon-delta' }
    ? EpsDeltaResult
    : G extends { kind: 'truncated-renyi' }
      ? TruncatedCalibration
      : G extends { kind: 'mi' }
        ? MiCalibrationResult
        : never;

/** The Rényi guarantee's methods: the per-pair ones and the law sources' own (a chain's MQM, GK16, GroupDP). */
const RENYI_METHODS: readonly string[] = [...METHODS, ...SOURCE_METHOD_NAMES];

const methodFor = <M extends string>(m: string | undefined, allowed: readonly string[], fallback: M): M => {
  if (m === undefined) return fallback;
  if (!allowed.includes(m)) throw unknownName('method', m, allowed, 'method', 'one of ', ' for this guarantee');
  return m as M;
};

/**
 * Calibrates `noise` for any guarantee: the one entry the CLI, the web worker and the library
 * share. A new guarantee is a new member of `Guarantee` and a case here (the `never` default
 * makes the compiler ask for it).
 * @example calibrateFor(builtinScenario('heart'), { kind: 'mi', epsilon: 0.05 }, { mechanism: 'gaussian' }).scale
 */
export function calibrateFor<G extends Guarantee>(scenario: AnyScenario, g: G, noise: NoiseChoice, opts?: { onProgress?: Progress }): GuaranteeResult<G>;
export function calibrateFor(
  scenario: AnyScenario,
  g: Guarantee,
  noise: NoiseChoice,
  opts: { onProgress?: Progress } = {},
): CalibrationResult | TruncatedCalibration | MiCalibrationResult | EpsDeltaResult {
  checkShape(OBJECT, g, 'guarantee');
  checkShape(OBJECT, noise, 'noise');
  const { mechanism, cost, eta } = noise;
  const weights = noise.coordinateScales ? { coordinateScales: noise.coordinateScales } : {};
  const adversary = (c: BoxContamination | undefined) => (c ? { contamination: c } : {});
  const many = (n: number | undefined) => (n !== undefined ? { releases: n } : {});
  switch (g.kind) {
    case 'renyi':
      return calibrate(
        scenario,
        {
          mechanism,
          method: methodFor(noise.method, RENYI_METHODS, 'best'),
          alpha: g.alpha,
          epsilon: g.epsilon,
          cost,
          eta,
          ...many(g.releases),
          ...adversary(g.contamination),
          ...weights,
        },
        opts,
      );
    case 'truncated-renyi':
      return calibrateTruncated(scenario, { mechanism, cost, eta, alpha: g.alpha, epsilon: g.epsilon, method: 'exact' }, g.interval);
    case 'epsilon-delta': {
      const progress = ordersProgress(opts.onProgress, (g.alphas ?? DEFAULT_DELTA_ALPHAS).length);
      const r = calibrateEpsDelta(
        scenario,
        {
          mechanism,
          method: methodFor(noise.method, RENYI_METHODS, 'best'),
          cost,
          eta,
          ...many(g.releases),
          ...adversary(g.contamination),
          ...weights,
          epsilon: g.epsilon,
          delta: g.delta,
          alphas: g.alphas,
        },
        (st, tried) => calibrate(scenario, st, { onProgress: progress.at(tried) }),
      );
      progress.finish();
      return r;
    }
    case 'mi':
      return calibrateMI(
        scenario,
        { mechanism, epsilon: g.epsilon, releases: g.releases, method: methodFor(noise.method, MI_METHODS, 'best'), ...weights },
        opts,
      );
    default: {
      const unknown: never = g;
      throw new InputError(`unknown guarantee ${JSON.stringify(unknown)}`, 'guarantee');
    }
  }
}
