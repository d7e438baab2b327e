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
  const back = Number(near);
  // Read back above x, the text is above it; read back equal, the exact values decide (0.1 is below the double 0.1).
  if (back > x || (back === x && compareExact(near, x) >= 0)) return near;
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
  // 1000…0 − 1 = 999…9 one place lower (at one digit, 1 − 1 = 0: the 9 one place lower too).
  if (d.length < digits || digitsOnly === 0n) {
    d = '9'.repeat(digits);
    e--;
  }
  return `${neg ? '-' : ''}${d[0]}${digits > 1 ? `.${d.slice(1)}` : ''}e${e >= 0 ? '+' : ''}${e}`;
}

/**
 * A number as text shows it: ±∞ for infinities (an order α = ∞, an interval's open end, a level
 * with no finite bound), else JavaScript's shortest round-trip form.
 * @example numberText(Infinity) // '∞'
 */
export function numberText(x: number): string {
  return x === Infinity ? '∞' : x === -Infinity ? '−∞' : String(x);
}

/**
 * `x.toPrecision(p)` rounded toward +∞: the text read back is ≥ x (a divergence, an MI level, a
 * charge printed in a sentence).
 * @example precisionUp(0.0009999704186, 6) // '0.000999971'
 */
export function precisionUp(x: number, p: number): string {
  if (x === 0 || Number.isNaN(x)) return x.toPrecision(p);
  if (!Number.isFinite(x)) return numberText(x);
  return precisionText(decimalUp(x, p));
}

/** An exponent-form text (`d.ddde±k`) laid out as `toPrecision` lays out its digits (no rounding: near the smallest doubles a round trip through a double would lose the direction). */
function precisionText(exponential: string): string {
  const [mant, exp] = exponential.split('e');
  const neg = mant.startsWith('-');
  const digits = mant.replace(/[-.]/g, '');
  const e = Number(exp);
  const sign = neg ? '-' : '';
  if (e < -6 || e >= digits.length) return `${sign}${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}e${e >= 0 ? '+' : ''}${e}`;
  if (e < 0) return `${sign}0.${'0'.repeat(-e - 1)}${digits}`;
  const int = digits.slice(0, e + 1);
  const rest = digits.slice(e + 1);
  return `${sign}${int}${rest ? `.${rest}` : ''}`;
}

/**
 * `x.toPrecision(p)` rounded toward −∞: the text read back is ≤ x (a lower bound, "at least").
 * @example precisionDown(1.1609418149, 3) // '1.16'
 */
export function precisionDown(x: number, p: number): string {
  if (x === 0 || Number.isNaN(x)) return x.toPrecision(p);
  if (!Number.isFinite(x)) return numberText(x);
  const up = precisionUp(-x, p);
  return up.startsWith('-') ? up.slice(1) : `-${up}`;
}

/** The sign of text − x, exactly (text a decimal in exponent form, x a finite double). */
function compareExact(text: string, x: number): number {
  const [mant, exp] = text.split('e');
  const frac = mant.split('.')[1] ?? '';
  let D = BigInt(mant.replace('.', ''));
  let k = Number(exp) - frac.length; // text = D·10^k
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0),
    lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let M = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let E = biased === 0 ? -1074 : biased - 1075; // x = ±M·2^E
  if (biased !== 0) M |= 1n << 52n;
  if (x < 0) M = -M;
  // Both sides as integers: multiply by 10^−k and 2^−E where those are negative.
  if (k < 0) {
    M *= 10n ** BigInt(-k);
    k = 0;
  }
  if (E < 0) {
    D *= 2n ** BigInt(-E);
    E = 0;
  }
  const left = D * 10n ** BigInt(k),
    right = M * 2n ** BigInt(E);
  return left > right ? 1 : left < right ? -1 : 0;
}
