import { InputError } from '../errors.js';
import { decimalValue, isDecimal } from '../numerics/float.js';

/**
 * Reads a decimal number typed on the command line; anything `Number()` would also accept
 * (`0x10`, `0b1`, `''`, ` `) is refused, naming the flag.
 * @example decimal('1e-3', '--level') // 0.001
 */
export function decimal(text: string, flag: string): number {
  if (!isDecimal(text)) throw new InputError(`'${text}' is not a decimal number`, flag);
  if (Number.isNaN(decimalValue(text))) throw beyondDouble(text, flag);
  return Number(text);
}

/** A decimal text whose value is not a double (`1e400` → ∞, `1e-400` → 0), refused by flag. */
export const beyondDouble = (text: string, flag: string) =>
  new InputError(`'${text}' is beyond the range of a double (it would be read as ${Number(text)})`, flag);
