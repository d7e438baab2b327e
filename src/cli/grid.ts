import { InputError } from '../errors.js';
import { decimalValue, isDecimal, toDecimal } from '../numerics/float.js';
import { beyondDouble } from './numbers.js';
import { parseAlpha } from '../settings.js';

/**
 * `from + i·step` in exact decimal arithmetic, then rounded once to the nearest double: the
 * points are the decimals the user typed (1.5 + 3·0.1 → 1.8; 0.1234567890126 stays itself).
 */
function rangePoint(from: number, step: number, i: number): number {
  const a = toDecimal(from),
    b = toDecimal(step);
  const e = Math.min(a.exponent, b.exponent);
  const n = a.digits * 10n ** BigInt(a.exponent - e) + BigInt(i) * b.digits * 10n ** BigInt(b.exponent - e);
  return Number(`${n}e${e}`);
}

/**
 * A list `A,B,C` or an inclusive range `FROM:TO:STEP` of numbers ("inf" allowed in lists when
 * `allowInf`). Each entry is checked to be a number; range checks (α > 0, ε > 0) happen in calibrate.
 * @example parseGrid('1.5:3:0.5', 'alpha') // [1.5, 2, 2.5, 3]
 */
export function parseGrid(text: string, flag: string, allowInf = false): number[] {
  const path = `--${flag}`;
  const one = (s: string) => {
    if (allowInf) return parseAlpha(s, path);
    if (!isDecimal(s)) throw new InputError(`'${s}' is not a number`, path);
    if (Number.isNaN(decimalValue(s))) throw beyondDouble(s, path);
    return Number(s);
  };
  if (text.includes(':')) {
    const parts = text.split(':');
    if (parts.length !== 3) throw new InputError(`range must be FROM:TO:STEP, got '${text}'`, path);
    const [from, to, step] = parts.map((p) => decimalValue(p));
    if (![from, to, step].every(Number.isFinite)) throw new InputError(`range '${text}' needs three finite numbers`, path);
    if (!(step > 0)) throw new InputError(`range step must be > 0, got ${step}`, path);
    if (to < from) throw new InputError(`range end ${to} is below its start ${from}`, path);
    const n = Math.floor((to - from) / step + 1e-9);
    if (n > 100000) throw new InputError(`range '${text}' has more than 100000 points`, path);
    return Array.from({ length: n + 1 }, (_, i) => rangePoint(from, step, i)).filter((x) => x <= to);
  }
  return text.split(',').map(one);
}

/** A comma-separated list of names, each checked against `allowed`. */
export function parseNames<T extends string>(text: string, flag: string, allowed: readonly T[]): T[] {
  return text.split(',').map((s) => {
    const v = s.trim();
    if (!(allowed as readonly string[]).includes(v)) throw new InputError(`unknown value '${v}' (one of ${allowed.join(', ')})`, `--${flag}`);
    return v as T;
  });
}
