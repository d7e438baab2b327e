/** Helpers for exact and directed floating-point arithmetic. */

/** Machine epsilon 2^-52 (one ulp at 1). Error bounds below are written in units of it. */
export const EPS = Number.EPSILON;

const buf = new DataView(new ArrayBuffer(8));

/** The smallest double strictly greater than `x` (x finite). */
export function nextUp(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x === 0) return Number.MIN_VALUE;
  buf.setFloat64(0, x);
  let bits = buf.getBigUint64(0);
  bits = x > 0 ? bits + 1n : bits - 1n;
  buf.setBigUint64(0, bits);
  return buf.getFloat64(0);
}

/**
 * The largest double strictly below `x` (x finite).
 * @example nextDown(1) < 1 // true
 */
export const nextDown = (x: number): number => -nextUp(-x);

/**
 * A finite double as the exact decimal it prints as: `digits · 10^exponent`, from the shortest
 * string that round-trips (ECMAScript Number::toString). So 0.1 is 1·10^-1, not the binary
 * 0.1000000000000000055…: weights typed as decimals keep their intended exact sums
 * (0.1 + 0.2 = 0.3), which is what the exact coupling needs.
 */
export function toDecimal(x: number): { digits: bigint; exponent: number } {
  if (!Number.isFinite(x)) throw new RangeError(`toDecimal: ${x} is not finite`);
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(x));
  if (!m) throw new RangeError(`toDecimal: cannot parse ${x}`);
  const frac = m[3] ?? '';
  const digits = BigInt(m[1] + m[2] + frac);
  return { digits, exponent: Number(m[4] ?? 0) - frac.length };
}

/** Number of binary digits of |n| (0 for 0). */
export function bitLength(n: bigint): number {
  if (n === 0n) return 0;
  const a = n < 0n ? -n : n;
  const sign = n < 0n ? 1 : 0;
  const x = Number(a);
  if (x < 2 ** 1023) {
    // x is a rounded to nearest, so 2^k ≤ x < 2^(k+1) puts a's top bit at k − 1 or k: one shift decides.
    const k = exponentOf(x);
    return (a >> BigInt(k) === 0n ? k : k + 1) + sign;
  }
  // Beyond the doubles: drop 960 bits at a time (a shift is linear in the size) until it fits.
  let rest = a,
    dropped = 0;
  while (!(Number(rest) < 2 ** 1023)) {
    rest >>= 960n;
    dropped += 960;
  }
  return bitLength(rest) + dropped + sign;
}

const bits = new DataView(new ArrayBuffer(8));
/** The k with 2^k ≤ x < 2^(k+1), for a normal double x ≥ 1 (its biased exponent field, exactly). */
function exponentOf(x: number): number {
  bits.setFloat64(0, x);
  return ((bits.getUint32(0) >>> 20) & 0x7ff) - 1023;
}

/** x·2^k for any integer k, scaling in steps so nothing overflows or underflows early. */
export function ldexp(x: number, k: number): number {
  while (k > 1000) {
    x *= 2 ** 1000;
    k -= 1000;
  }
  while (k < -1000) {
    x *= 2 ** -1000;
    k += 1000;
  }
  return x * 2 ** k;
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * num/den (num ≥ 0, den > 0) as a double with relative error at most ~1.0001·2^-53
 * (one rounding of a 64-bit quotient), for integers of any size.
 */
export function ratioToNumber(num: bigint, den: bigint, denBits = -1): number {
  if (den <= 0n) throw new RangeError('ratioToNumber: denominator must be positive');
  if (num === 0n) return 0;
  if (num <= SAFE && den <= SAFE) return Number(num) / Number(den);
  // `denBits`: bitLength(den), when the caller divides many numerators by one denominator.
  const shift = 66 - (bitLength(num) - (denBits >= 0 ? denBits : bitLength(den))); // quotient gets ~66 significant bits
  const q = shift >= 0 ? (num << BigInt(shift)) / den : num / (den << BigInt(-shift));
  return ldexp(Number(q), -shift);
}

/** log Γ(x), x > 0 (Lanczos, g = 7; relative error ~1e-15). */
export function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
    9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Largest element (−∞ for none); a loop, since `Math.max(...xs)` overflows the stack near 10⁵ elements. */
export function maxOf(xs: Iterable<number>): number {
  let m = -Infinity;
  for (const x of xs) if (x > m || Number.isNaN(x)) m = x;
  return m;
}

/** Smallest element (∞ for none); see `maxOf`. */
export function minOf(xs: Iterable<number>): number {
  let m = Infinity;
  for (const x of xs) if (x < m || Number.isNaN(x)) m = x;
  return m;
}

/**
 * Whether `text` is a decimal number as people write it (`-1.5`, `.2`, `3e-4`): never hex (`0x10`),
 * binary, `Infinity` or blank text, all of which `Number()` would also accept.
 * @example isDecimal('0x10') // false
 */
export const isDecimal = (text: string): boolean => /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(text);

/**
 * A decimal text's value, or NaN when the text is not decimal (`isDecimal`) or its value is not a
 * double: `1e400` would be read as ∞ and `1e-400` as 0, silently another setting.
 * @example decimalValue('1e-400') // NaN
 */
export function decimalValue(text: string): number {
  if (!isDecimal(text)) return NaN;
  const v = Number(text);
  if (!Number.isFinite(v) || (v === 0 && /[1-9]/.test(text.replace(/[eE].*$/, '')))) return NaN;
  return v;
}

/**
 * Splits a double into two halves of 26 bits each (Veltkamp), so products of halves are exact.
 * Inputs below 2^996 in magnitude (no overflow of the splitter).
 */
function split(a: number): [number, number] {
  const c = 134217729 * a; // 2^27 + 1
  const hi = c - (c - a);
  return [hi, a - hi];
}

/** The rounding error of `a * b`: a·b = fl(a·b) + e exactly (Dekker's TwoProduct, no fused multiply-add). */
function productError(a: number, b: number, p: number): number {
  const [ah, al] = split(a);
  const [bh, bl] = split(b);
  return al * bl - (p - ah * bh - al * bh - ah * bl);
}

/**
 * x / n rounded up: the smallest double q with q·n ≥ x exactly (n > 0). A scale divided by a
 * public count (a mean's noise from its sum's) never loses a bit of noise to rounding.
 * @example divideUp(1, 3) > 1 / 3 // true
 */
export function divideUp(x: number, n: number): number {
  // The step below moves q up, toward x/n, only for n > 0 (a negative n would step away forever).
  if (!(n > 0 && Number.isFinite(n))) throw new RangeError(`divideUp: n must be finite and > 0, got ${n}`);
  let q = x / n;
  if (!Number.isFinite(q) || q === 0) return q === 0 && x > 0 ? Number.MIN_VALUE : q;
  // q·n = p + e exactly; step up while that is still below x.
  for (;;) {
    const p = q * n;
    if (p > x || (p === x && productError(q, n, p) >= 0)) return q;
    q = nextUp(q);
  }
}

/**
 * x / n rounded down (n > 0): the largest double q with q·n ≤ x exactly (an interval's lower end).
 * @example divideDown(1, 3) < 1 / 3 // true
 */
export function divideDown(x: number, n: number): number {
  return -divideUp(-x, n);
}

/**
 * The greatest common divisor of two safe integers, ≥ 0 (gcd(0, 0) = 0).
 * @example gcd(-4, 6) // 2
 */
export function gcd(a: number, b: number): number {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/**
 * log(2x) for x > 0 without overflow: 2x is exact below the largest double's half (the same bits as
 * `Math.log(2 * x)` there), and log 2 + log x above it, where 2x would be ∞.
 * @example log2x(1e308) // 709.889…, not ∞
 */
export function log2x(x: number): number {
  return x < Number.MAX_VALUE / 2 ? Math.log(2 * x) : Math.LN2 + Math.log(x);
}
