import { exactWindowApplies, windowsExponent } from '../calibrate/windows.js';
import { InputError, NumericalError } from '../errors.js';
import { WindowBoundsRefused } from '../markov/windows.js';
import { smallestFitting } from '../numerics/smallestScale.js';
import type { WindowScenario } from '../markov/windowScenario.js';
import { mechanismDef, noiseOptions } from '../mechanisms/registry.js';
import { bestEpsilonDelta, type Accounting, type Release } from './rows.js';

/**
 * The joint level of a series' window releases, released in order (release k is window k): per
 * order, the boundary-coupled bound (per pair the smaller of it and the path-coupled bound; the
 * path-coupled alone for noise without an exact accountant) with each released window at its own noise and the windows not
 * yet released at none (docs/math.md §19). The naive sum is not computed (NaN): each window's own
 * bound is a programme as long as the joint one.
 * @example accountWindows(windowScenario(validateSpec({ states: ['a', 'b'], chains: [{ name: 'c', transition: [[0.9, 0.1], [0.2, 0.8]], initial: 'stationary' }], length: 4, query: { count: 'b' } }), [2, 2], 'toy'), [{ mechanism: 'laplace', scale: 3 }], { alphas: [2] }).rows[0].divergence > 0 // true
 */
export function accountWindows(
  s: WindowScenario,
  releases: readonly Release[],
  opts: { alphas: readonly number[]; delta?: number; fitsWithin?: number },
): Accounting {
  if (releases.length > s.lengths.length)
    throw new InputError(
      `${releases.length} window releases, but the series has ${s.lengths.length} windows: every window is released once, in order`,
      'release',
    );
  const noises = s.lengths.map((_, w) => (w < releases.length ? { mechanism: releases[w].mechanism, scale: releases[w].scale } : null));
  // Per pair the smaller of the path- and the boundary-coupled bound, where every release's noise has an exact accountant.
  const boundary = releases.every((r) => exactWindowApplies(r.mechanism));
  const method = boundary ? ('boundary-coupled' as const) : ('path-coupled' as const);
  const group = groupDpLevel(s, releases);
  const refused: WindowBoundsRefused[] = [];
  const rows = opts.alphas.map((alpha) => {
    if (!(alpha > 0 && alpha !== 1))
      throw new InputError(`window releases are accounted at orders α > 0 but 1 (the path-coupled bound); got ${alpha}`, 'alpha');
    const byGroup = { alpha, divergence: group, method: 'group-dp' as const, binding: null, naiveSum: Number.NaN, understated: null };
    // At α = ∞ the path bound gives nothing finite (its worst path is group DP itself).
    if (alpha === Infinity) return group < Infinity ? byGroup : { ...byGroup, method };
    try {
      const level = windowLevel(s, noises, alpha, boundary, opts.fitsWithin);
      // D_α ≤ D_∞: group DP's level holds at every order, and is the answer where it is the smaller.
      return group < level.divergence ? byGroup : { alpha, ...level, method, naiveSum: Number.NaN, understated: null };
    } catch (e) {
      // A chain or series the window bounds refuse still has group DP's level, where it is finite.
      if (!(e instanceof WindowBoundsRefused) || !(group < Infinity)) throw e;
      refused.push(e);
      return byGroup;
    }
  });
  return {
    releases: releases.length,
    rows,
    epsilonDelta: bestEpsilonDelta(rows, opts.delta),
    releasesOf: `the first ${releases.length} of ${s.lengths.length} windows of one series, in order`,
    ...(refused.length
      ? { note: `the path- and boundary-coupled bounds do not apply (${refused[0].brief}): group DP's level, which holds at every order, answers` }
      : {}),
  };
}

/**
 * The path- or boundary-coupled level at one order α > 1 or α ∈ (0, 1). A search for a scale that
 * fits (`fitsWithin`) stops at the first pair that misses (α−1)ε; a level is the worst pair's,
 * refined only as far as it binds.
 */
function windowLevel(
  s: WindowScenario,
  noises: Parameters<typeof windowsExponent>[3],
  alpha: number,
  boundary: boolean,
  fitsWithin: number | undefined,
): Pick<Accounting['rows'][number], 'divergence' | 'binding'> {
  const b = windowsExponent(
    s.model,
    s.lengths,
    alpha,
    noises,
    !boundary ? undefined : fitsWithin !== undefined ? { target: (alpha - 1) * fitsWithin, stopAtFailure: true } : { worstOnly: true },
  );
  const binding = b.binding
    ? { prior: `X[${b.binding.time + 1}]`, pair: [s.model.states[b.binding.a], s.model.states[b.binding.b]] as [string, string] }
    : null;
  return { divergence: b.exponent / (alpha - 1), binding };
}

/**
 * Group DP's level of the released windows, an α = ∞ bound that holds at every order: one series
 * against any other moves window w's count by at most L·len_w, and D∞ of independent coordinates
 * adds up, so the level is Σ_w D∞(noise, shift L·len_w). Taken for families whose D∞ grows with the
 * shift (Laplace-shaped and lattice noise); ∞ for the others and for a window without noise.
 */
function groupDpLevel(s: WindowScenario, releases: readonly Release[]): number {
  return releases.reduce((sum, r, w) => {
    const def = mechanismDef(r.mechanism);
    if (!(r.scale > 0) || !(def.composes === 'rate' || def.composes === 'lattice')) return Infinity;
    const d = def.pointDivergence(s.model.lipschitz * s.lengths[w], r.scale, Infinity, noiseOptions({}));
    return sum + d.value + d.error;
  }, 0);
}

/**
 * The smallest scale at which the next window of a series, after the windows `past` released in
 * order, keeps the joint level within (α, ε) (`account --next` for windows): a geometric bisection
 * whose answer is the feasible end (relative width 10⁻⁶), re-checked. Null when no scale fits (the
 * past windows alone exceed the budget).
 * @example nextWindowScale(windowScenario(validateSpec({ states: ['a', 'b'], chains: [{ name: 'c', transition: [[0.9, 0.1], [0.2, 0.8]], initial: 'stationary' }], length: 4, query: { count: 'b' } }), [2, 2], 'toy'), [], 'laplace', 2, 1)!.scale > 0 // true
 */
export function nextWindowScale(
  s: WindowScenario,
  past: readonly Release[],
  mechanism: Release['mechanism'],
  alpha: number,
  epsilon: number,
): { scale: number; binding: Accounting['rows'][number]['binding']; method: Accounting['rows'][number]['method'] } | null {
  if (past.length >= s.lengths.length) throw new InputError(`all ${s.lengths.length} windows of the series are released: there is no next window`, 'release');
  const fits = (scale: number) => accountWindows(s, [...past, { mechanism, scale }], { alphas: [alpha], fitsWithin: epsilon }).rows[0].divergence <= epsilon;
  const hi = smallestFitting(fits, Math.max(1, ...past.map((r) => r.scale)));
  if (hi === null) return null;
  const row = accountWindows(s, [...past, { mechanism, scale: hi }], { alphas: [alpha] }).rows[0];
  if (!(row.divergence <= epsilon)) throw new NumericalError(`the next window's scale ${hi} does not keep ε = ${epsilon} on re-check`);
  return { scale: hi, binding: row.binding, method: row.method };
}
