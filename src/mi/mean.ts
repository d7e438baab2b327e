import { checkShape, OBJECT } from '../shapes.js';
import { checkSetting } from '../settings.js';
import { checkMiApplicable, type Scenario } from '../distribution/scenario.js';
import type { Discrete } from '../distribution/discrete.js';
import { InputError } from '../errors.js';
import { EPS, nextUp } from '../numerics/float.js';
import { lawAtoms, spreadBound } from './projection.js';
import type { PointLaw } from '../distribution/points.js';
import { precisionUp } from '../numerics/decimal.js';

/** A private mean: its noise, the error it implies, and the spread it was set by. */
export interface MeanCalibration {
  /** Gaussian σ on each coordinate of the released mean (named `scale`, as every calibration names its noise). */
  scale: number;
  parameter: 'sigma';
  variance: number;
  /** Rows averaged and columns released. */
  n: number;
  d: number;
  epsilon: number;
  /** The largest tr Cov of one row over the priors (upper bound), and its prior. */
  rowSpread: number;
  binding: string | null;
  /** E‖released mean − population mean‖² (summed over coordinates): sampling plus noise. */
  mse: number;
  explanation: string;
}

/** An upper bound on tr Cov of one row under a prior (the spread bound of §15 with A = I), and d. */
function rowSpread(prior: Scenario<Discrete | PointLaw>['priors'][number]): { spread: number; d: number } {
  const d = lawAtoms(Object.values(prior.conditionals)[0]).points[0].length;
  return { spread: spreadBound(prior, (x) => x, d, 'query'), d };
}

/**
 * ε-MI Pufferfish for the mean of n rows drawn i.i.d. from a law of the class (docs/math.md §16):
 * the mean has tr Cov = tr Cov(row)/n, so the bound of §15 with A = I gives
 * σ² = tr Cov(row) / (n·d·(e^{2ε/d} − 1)), and the released mean's squared error about the
 * population mean is, in expectation, tr Cov(row)/n + d·σ² = (tr Cov(row)/n)·e^{2ε/d}/(e^{2ε/d} − 1).
 * @example calibrateMean(builtinScenario('heart'), { epsilon: 0.1, rows: 303 }).mse
 */
export function calibrateMean(scenario: Scenario<Discrete | PointLaw>, settings: { epsilon: number; rows: number }): MeanCalibration {
  checkShape(OBJECT, settings, 'settings');
  const { epsilon, rows: n } = settings;
  checkMiApplicable(scenario);
  checkSetting('epsilon', epsilon);
  checkSetting('rows', n);
  let spread = 0;
  let binding: string | null = null;
  let d = 1;
  for (const p of scenario.priors) {
    const r = rowSpread(p);
    d = r.d;
    if (r.spread > spread) [spread, binding] = [r.spread, p.name];
  }
  const e = Math.expm1((2 * epsilon) / d);
  const variance = spread === 0 ? 0 : nextUp(nextUp(spread / (n * d * e * (1 - 32 * EPS))));
  const sigma = variance === 0 ? 0 : nextUp(Math.sqrt(variance));
  const mse = spread / n + d * variance;
  return {
    scale: sigma,
    parameter: 'sigma',
    variance,
    n,
    d,
    epsilon,
    rowSpread: spread,
    binding,
    mse,
    explanation: `mean of n = ${n} i.i.d. rows, ${d} column(s): σ² = tr Cov(row) / (n·d·(e^{2ε/d} − 1)) with tr Cov(row) ≤ ${precisionUp(spread, 6)} (prior '${binding}'); MSE = tr Cov(row)/n + d·σ² (docs/math.md §16)`,
  };
}

/**
 * The fewest rows whose private mean (at ε) has expected squared error at most `targetMse`:
 * n ≥ tr Cov(row)·e^{2ε/d} / ((e^{2ε/d} − 1)·targetMse), checked against `calibrateMean`.
 * @example meanSampleSize(builtinScenario('heart'), { epsilon: 0.1, targetMse: 0.01 })
 */
export function meanSampleSize(scenario: Scenario<Discrete | PointLaw>, settings: { epsilon: number; targetMse: number }): number {
  checkShape(OBJECT, settings, 'settings');
  const { epsilon, targetMse } = settings;
  checkSetting('target-mse', targetMse);
  const probe = calibrateMean(scenario, { epsilon, rows: 1 });
  const e = Math.expm1((2 * epsilon) / probe.d);
  let n = Math.max(1, Math.ceil((probe.rowSpread * (1 + e)) / (e * targetMse)));
  if (!Number.isSafeInteger(n)) throw new InputError(`would need more than 2⁵³ rows (${n.toPrecision(3)})`, 'target-mse');
  // The closed form, then the calibration itself: the smallest n it says meets the target.
  while (calibrateMean(scenario, { epsilon, rows: n }).mse > targetMse) n++;
  while (n > 1 && calibrateMean(scenario, { epsilon, rows: n - 1 }).mse <= targetMse) n--;
  return n;
}
