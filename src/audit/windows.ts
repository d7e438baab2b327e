import { checkWindowInputs, windowsExponent, exactWindowApplies, releasedWindows } from '../calibrate/windows.js';
import { checkSetting } from '../settings.js';
import { ARRAY, checkKeys, checkShape } from '../shapes.js';
import type { MarkovModel } from '../markov/chain.js';
import type { Mechanism } from '../mechanisms/registry.js';

/** One order of a window-count audit: the bound on D_α (path- or boundary-coupled, the smaller per pair), where it binds, and the times needing most. */
export interface WindowAuditRow {
  alpha: number;
  /** An upper bound on D_α of the released windows together, over every secret time and pair. */
  bound: number;
  /** The secret time (1-based) and states where the bound is largest. */
  binding: { time: number; pair: [string, string] } | null;
  /** The five secret times (1-based) with the largest bounds, largest first. */
  top: { time: number; bound: number }[];
  /** The bound per secret time (1-based time t at index t − 1; −∞: no pair there). */
  perTime: number[];
}

/**
 * The audit of window counts released at one scale (docs/math.md §19): per order, the bound on D_α
 * (per secret pair the smaller of the path-coupled and the boundary-coupled bound) with its binding time and pair; `released` = K bounds the first K windows only.
 * @example auditWindows(validateSpec({ states: ['a', 'b'], chains: [{ name: 'c', transition: [[0.9, 0.1], [0.2, 0.8]], initial: 'stationary' }], length: 4, query: { count: 'b' } }), [2, 2], { mechanism: 'laplace', scale: 3, alphas: [2] })[0].bound > 0 // true
 */
export function auditWindows(
  model: MarkovModel,
  lengths: readonly number[],
  s: { mechanism: Mechanism; scale: number; alphas: readonly number[]; released?: number },
): WindowAuditRow[] {
  checkWindowInputs(model, lengths, s);
  checkKeys(s, ['mechanism', 'scale', 'alphas', 'released'], 'settings');
  checkSetting('scale', s.scale);
  checkShape(ARRAY, s.alphas, 'alphas');
  const released = releasedWindows(s.released, lengths.length, 'released');
  const noises = lengths.map((_, k) => (k < released ? { mechanism: s.mechanism, scale: s.scale } : null));
  // The smaller of the path- and boundary-coupled bounds per pair (what `best` calibrates by), where the noise has an exact accountant.
  const exact = exactWindowApplies(s.mechanism) ? {} : undefined;
  return s.alphas.map((alpha) => {
    const b = windowsExponent(model, lengths, alpha, noises, exact);
    const perTime = Array.from(b.perTime, (x) => x / (alpha - 1));
    const top = perTime
      .map((d, t) => ({ time: t + 1, bound: d }))
      .sort((x, y) => y.bound - x.bound)
      .slice(0, 5);
    const binding = b.binding ? { time: b.binding.time + 1, pair: [model.states[b.binding.a], model.states[b.binding.b]] as [string, string] } : null;
    return { alpha, bound: b.exponent / (alpha - 1), binding, top, perTime };
  });
}
