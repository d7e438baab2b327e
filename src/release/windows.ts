import type { MarkovModel } from '../markov/chain.js';
import { calibrateWindows, windowContribution, type WindowMethod, type WindowResult } from '../calibrate/windows.js';
import type { Mechanism } from '../mechanisms/registry.js';
import { cryptoSource, type RandomSource } from '../sampling/random.js';
import { InputError } from '../errors.js';
import { ARRAY, checkShape, OBJECT } from '../shapes.js';
import { coordinateNoise } from './noise.js';
import { DEFAULT_CONFIDENCE } from './interval.js';
import { numberText, precisionDown } from '../numerics/decimal.js';

/**
 * A window calibration's guarantee in words: Rényi at its order, or an (ε, δ) target through the order that met it.
 * @example windowGuarantee({ method: 'group-dp', mechanism: 'laplace', alpha: 2, epsilon: 1, scale: 6, explanation: '' }) // '(α=2, ε=1)-Rényi Pufferfish'
 */
export function windowGuarantee(c: WindowResult): string {
  const alpha = numberText(c.alpha);
  return c.target
    ? `(ε=${c.target.epsilon}, δ=${c.target.delta})-Pufferfish through α = ${alpha} (Rényi budget ${Number(precisionDown(c.epsilon, 6))})`
    : `(α=${alpha}, ε=${c.epsilon})-Rényi Pufferfish`;
}

/** Released window counts: each window's noisy count and its interval, at the calibrated scale. */
export interface WindowRelease {
  calibration: WindowResult;
  scale: number;
  halfWidth: number;
  confidence: number;
  values: number[];
  intervals: [number, number][];
}

/**
 * Releases the first `counts.length` window counts of a chain's series with independent noise at
 * the scale calibrated for them together (`calibrateWindows` with `released` = the windows given):
 * one exact draw per window from the platform CSPRNG.
 * @example releaseWindows(validateSpec({ states: ['a', 'b'], chains: [{ name: 'c', transition: [[0.9, 0.1], [0.2, 0.8]], initial: 'stationary' }], length: 6, query: { count: 'b' } }), [3, 3], [1, 2], { mechanism: 'laplace', method: 'group-dp', alpha: 2, epsilon: 1 }).values.length // 2
 */
export function releaseWindows(
  model: MarkovModel,
  lengths: readonly number[],
  counts: readonly number[],
  s: { mechanism: Mechanism; method: WindowMethod; alpha: number; epsilon: number; delta?: number; alphas?: readonly number[] },
  opts: { confidence?: number; random?: RandomSource; allowNoNoise?: boolean } = {},
): WindowRelease {
  checkShape(OBJECT, model, 'model');
  checkShape(ARRAY, counts, 'counts');
  checkShape(ARRAY, lengths, 'lengths');
  if (counts.length < 1 || counts.length > lengths.length)
    throw new InputError(`gives ${counts.length} counts for ${lengths.length} windows: give the first 1 to ${lengths.length}`, 'counts');
  // A window's value is a whole number its steps' contributions can add up to (a count: 0 to its length).
  const f = windowContribution(model);
  const [lo, hi] = [Math.min(...f), Math.max(...f)];
  counts.forEach((c, i) => {
    if (!(Number.isSafeInteger(c) && c >= lo * lengths[i] && c <= hi * lengths[i]))
      throw new InputError(
        `window ${i + 1} has ${lengths[i]} steps, so its ${model.query.kind} is a whole number from ${lo * lengths[i]} to ${hi * lengths[i]}, got ${String(c)}`,
        'counts',
      );
  });
  const calibration = calibrateWindows(model, lengths, { ...s, released: counts.length });
  // A method that does not apply to these settings is the user's choice to change, not a numerical failure.
  if (calibration.scale === null) throw new InputError(`${calibration.method} does not apply: ${calibration.explanation}`, 'method');
  // Counts published exactly hold only if the adversary's belief is exactly the chain class: opt in, as for any release.
  if (calibration.scale === 0 && !opts.allowNoNoise)
    throw new InputError(
      `the calibrated scale is 0, so the window counts would be published exactly (${calibration.explanation}) — this holds only if the adversary's belief is exactly in the chain class; pass --allow-no-noise to release them anyway`,
      'allow-no-noise',
    );
  return { calibration, ...drawWindows(counts, s.mechanism, calibration.scale, { ...opts, allowNoNoise: true }) };
}

/**
 * Window counts released at a given scale: one exact draw each from the platform CSPRNG (the
 * scale's guarantee is the caller's: a calibration, or a ledger's joint check).
 * @example drawWindows([3, 5], 'laplace', 2).values.length // 2
 */
export function drawWindows(
  counts: readonly number[],
  mechanism: Mechanism,
  scale: number,
  opts: { confidence?: number; random?: RandomSource; allowNoNoise?: boolean } = {},
): Omit<WindowRelease, 'calibration'> {
  checkShape(ARRAY, counts, 'counts');
  if (!counts.every((c) => Number.isSafeInteger(c))) throw new InputError('are window counts or sums: whole numbers', 'counts');
  // Scale 0 publishes the counts themselves: only where a calibration said so and the caller opted in.
  if (!(Number.isFinite(scale) && (scale > 0 || (scale === 0 && opts.allowNoNoise))))
    throw new InputError(`must be a finite number > 0 (0 publishes the counts exactly: allowNoNoise), got ${String(scale)}`, 'scale');
  const confidence = opts.confidence ?? DEFAULT_CONFIDENCE;
  // One coordinate per window, each at the common scale (a release of the vector of counts).
  // At least one coordinate, so the half-width is the family's even with no window yet.
  const noise = coordinateNoise({ mechanism }, scale, Array<number>(Math.max(1, counts.length)).fill(1), confidence);
  const values = noise.draw(counts, opts.random ?? cryptoSource);
  return { scale, halfWidth: noise.halfWidths[0], confidence, values, intervals: noise.intervals(values) };
}
