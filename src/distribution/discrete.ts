import { InputError } from '../errors.js';
import { bitLength, minOf, ratioToNumber, toDecimal } from '../numerics/float.js';

/**
 * A finite discrete distribution: distinct sorted support points with exact rational masses
 * `numerators[k] / denominator` (BigInt) and their correctly rounded doubles `masses[k]`.
 * Exactness matters for the coupling (docs/math.md §2): floating cumulative sums invent atoms.
 */
export interface Discrete {
  readonly values: Float64Array;
  readonly masses: Float64Array;
  readonly numerators: readonly bigint[];
  readonly denominator: bigint;
}

/**
 * What the divergences read of a law: its sorted support and double masses. A mixture of laws
 * (the marginal of several secrets) has double masses only.
 */
export type Law = Pick<Discrete, 'values' | 'masses'>;

/** A law's list of values is given and not empty. */
export function checkNotEmpty(values: unknown, path: string): void {
  if (!Array.isArray(values) || values.length === 0) throw new InputError('needs at least one value', `${path}.values`);
}

function checkValues(values: readonly number[], path: string): void {
  checkNotEmpty(values, path);
  values.forEach((v, i) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new InputError(`value ${String(v)} is not a finite number`, `${path}.values[${i}]`);
    }
  });
}

function build(values: readonly number[], nums: bigint[], path: string, field: string): Discrete {
  const order = values.map((_, i) => i).sort((a, b) => values[a] - values[b]);
  const vs: number[] = [];
  const ns: bigint[] = [];
  for (const i of order) {
    if (nums[i] === 0n) continue;
    if (vs.length > 0 && vs[vs.length - 1] === values[i]) ns[ns.length - 1] += nums[i];
    else {
      vs.push(values[i] === 0 ? 0 : values[i]);
      ns.push(nums[i]);
    } // fold -0 into 0
  }
  const denominator = ns.reduce((a, b) => a + b, 0n);
  if (denominator === 0n) throw new InputError(`${field} sum to zero; at least one must be positive`, `${path}.${field}`);
  const denBits = bitLength(denominator);
  return {
    values: Float64Array.from(vs),
    masses: Float64Array.from(ns, (n) => ratioToNumber(n, denominator, denBits)),
    numerators: ns,
    denominator,
  };
}

function checkLengths(values: readonly number[], other: readonly unknown[], path: string, field: string): void {
  if (!Array.isArray(other) || other.length !== values.length) {
    throw new InputError(`has ${Array.isArray(other) ? other.length : 'no'} entries but values has ${values.length}`, `${path}.${field}`);
  }
}

/**
 * From integer counts (a histogram). Duplicate values are merged; zero counts dropped.
 * @example fromCounts([1, 2, 3], [14, 70, 149]).masses // [14/233, 70/233, 149/233]
 */
export function fromCounts(values: readonly number[], counts: readonly (number | bigint)[], path = 'distribution'): Discrete {
  checkValues(values, path);
  checkLengths(values, counts, path, 'counts');
  const nums = counts.map((c, i) => {
    if (typeof c === 'bigint') {
      if (c < 0n) throw new InputError(`count ${c} is negative`, `${path}.counts[${i}]`);
      return c;
    }
    if (typeof c === 'number' && Number.isInteger(c) && c >= 0 && !Number.isSafeInteger(c))
      throw new InputError(`count ${String(c)} is too large to be exact (counts must be below 2^53; give "weights" instead)`, `${path}.counts[${i}]`);
    if (typeof c !== 'number' || !Number.isSafeInteger(c) || c < 0) {
      throw new InputError(`count ${String(c)} is not a non-negative integer`, `${path}.counts[${i}]`);
    }
    return BigInt(c);
  });
  return build(values, nums, path, 'counts');
}

/**
 * From non-negative finite weights (normalised). Each weight is read as the exact decimal it
 * prints as (`0.1` is 1/10), so weights typed as decimals sum exactly and the coupling has no
 * dust atoms from binary rounding.
 * @example fromWeights([0, 1], [0.25, 0.75]).masses // [0.25, 0.75]
 */
export function fromWeights(values: readonly number[], weights: readonly number[], path = 'distribution'): Discrete {
  checkValues(values, path);
  checkLengths(values, weights, path, 'weights');
  const dec = weights.map((w, i) => {
    if (typeof w !== 'number' || !Number.isFinite(w)) throw new InputError(`weight ${String(w)} is not a finite number`, `${path}.weights[${i}]`);
    if (w < 0) throw new InputError(`weight ${w} is negative`, `${path}.weights[${i}]`);
    return toDecimal(w);
  });
  const minExp = minOf(dec.filter((d) => d.digits !== 0n).map((d) => d.exponent));
  const nums = dec.map((d) => (d.digits === 0n ? 0n : d.digits * 10n ** BigInt(d.exponent - minExp)));
  return build(values, nums, path, 'weights');
}

/** m = mant·2^exp exactly, mant a whole number below 2^53 (m a positive finite double). */
const view = new DataView(new ArrayBuffer(8));
function binaryParts(m: number): { mant: bigint; exp: number } {
  view.setFloat64(0, m);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  const frac = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  return biased === 0 ? { mant: frac, exp: -1074 } : { mant: frac | (1n << 52n), exp: biased - 1075 };
}

/**
 * From positive finite double masses read exactly as binary fractions (computed laws, e.g. a
 * Markov chain's): the same law as `fromWeights`, without the decimal detour.
 * @example fromBinaryMasses([0, 1], [0.25, 0.75]).numerators // [1n, 3n]
 */
export function fromBinaryMasses(values: readonly number[], masses: ArrayLike<number>, path = 'distribution'): Discrete {
  checkValues(values, path);
  const parts = Array.from(masses, (m, i) => {
    if (!(m >= 0) || !Number.isFinite(m)) throw new InputError(`mass ${String(m)} is not a finite number ≥ 0`, `${path}.masses[${i}]`);
    return m === 0 ? null : binaryParts(m);
  });
  const minExp = Math.min(...parts.map((p) => (p ? p.exp : Infinity)));
  const nums = parts.map((p) => (p ? p.mant << BigInt(p.exp - minExp) : 0n));
  return build(values, nums, path, 'masses');
}

/**
 * A point mass at `x`.
 * @example pointMass(3).values // [3]
 */
export function pointMass(x: number): Discrete {
  return fromCounts([x], [1]);
}

/**
 * Mean of the distribution.
 * @example mean(fromCounts([0, 1], [1, 3])) // 0.75
 */
export function mean(d: Discrete): number {
  let s = 0;
  for (let k = 0; k < d.values.length; k++) s += d.masses[k] * d.values[k];
  return s;
}

/**
 * P = Q exactly: the same support and the same rational masses (cross-multiplied, so different
 * denominators of one law compare equal).
 * @example sameLaw(fromCounts([1, 2], [1, 1]), fromCounts([1, 2], [3, 3])) // true
 */
export function sameLaw(p: Discrete, q: Discrete): boolean {
  if (p.values.length !== q.values.length) return false;
  for (let k = 0; k < p.values.length; k++) {
    if (p.values[k] !== q.values[k] || p.numerators[k] * q.denominator !== q.numerators[k] * p.denominator) return false;
  }
  return true;
}
