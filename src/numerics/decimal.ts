/**
 * Decimal texts of doubles rounded in a stated direction: figures printed for people that bound a
 * privacy loss round up, figures that bound it from below round down, so a reader copying a number
 * never gets a better guarantee than the one computed.
 */

/**
 * `digits` significant digits rounded toward +∞: the printed text, read back, is ≥ x. Noise
 * scales and divergences printed for people round this way (more noise, more leakage), so a
 * scale copied from the table never under-noises.
 */
export function decimalUp(x: number, digits = 10): string {
  if (!Number.isFinite(x) || x === 0) return String(x);
  const near = x.toExponential(digits - 1);
  if (Number(near) >= x) return near;
  const [mant, exp] = near.split('e');
  const neg = mant.startsWith('-');
  // x < 0 and |x| rounded up in magnitude went below x: step the magnitude down instead.
  const digitsOnly = BigInt(mant.replace(/[-.]/g, '')) + (neg ? -1n : 1n);
  let e = Number(exp);
  let d = digitsOnly.toString();
  if (d.length > digits) {
    d = d.slice(0, digits);
    e++;
  }
  if (d.length < digits) {
    d = d.padEnd(digits, '9');
    e--;
  } // 1000…0 − 1 = 999…9 one place lower
  return `${neg ? '-' : ''}${d[0]}.${d.slice(1)}e${e >= 0 ? '+' : ''}${e}`;
}

/**
 * `x.toPrecision(p)` rounded toward +∞: the text read back is ≥ x (a divergence, an MI level, a
 * charge printed in a sentence).
 * @example precisionUp(0.0009999704186, 6) // '0.000999971'
 */
export function precisionUp(x: number, p: number): string {
  if (!Number.isFinite(x) || x === 0) return x.toPrecision(p);
  return Number(decimalUp(x, p)).toPrecision(p);
}

/**
 * `x.toPrecision(p)` rounded toward −∞: the text read back is ≤ x (a lower bound, "at least").
 * @example precisionDown(1.1609418149, 3) // '1.16'
 */
export function precisionDown(x: number, p: number): string {
  if (!Number.isFinite(x) || x === 0) return x.toPrecision(p);
  const up = precisionUp(-x, p);
  return up.startsWith('-') ? up.slice(1) : `-${up}`;
}
