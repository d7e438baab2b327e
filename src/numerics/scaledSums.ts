/**
 * Running sums of terms given as v·e^g with g of any size (the integral, its certified error and
 * its rounding bound, per integrand), kept relative to the largest g seen so far so nothing
 * overflows or underflows needlessly: total = e^{M[k]}·T[k], error e^{M[k]}·E[k], rounding e^{M[k]}·R[k].
 * Terms far below e^M may underflow to 0; callers charge that (each below 2^−1022 times its size).
 * @example const s = scaledSums(1); s.add(0, 800, 1, 0, 0); s.add(0, 799, 1, 0, 0); s.M[0] + Math.log(s.T[0]) // 800.3133
 */
export function scaledSums(count: number) {
  const M = new Float64Array(count).fill(-Infinity),
    T = new Float64Array(count),
    E = new Float64Array(count),
    R = new Float64Array(count);
  /** Adds e^g·(value v, error e, rounding rd) to sum k; g = −∞ adds nothing. */
  const add = (k: number, g: number, v: number, e: number, rd: number) => {
    if (g === -Infinity) return;
    if (g > M[k]) {
      const s = Math.exp(M[k] - g);
      T[k] *= s;
      E[k] *= s;
      R[k] *= s;
      M[k] = g;
    }
    const s = Math.exp(g - M[k]);
    T[k] += v * s;
    E[k] += e * s;
    R[k] += rd * s;
  };
  return { M, T, E, R, add };
}
