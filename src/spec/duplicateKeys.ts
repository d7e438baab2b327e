import { InputError } from '../errors.js';
import { decimalValue } from '../numerics/float.js';

/**
 * The first place in valid JSON text (run after `JSON.parse` succeeded) that `JSON.parse` reads
 * silently wrong: a key repeated within one object (the last is kept, which would drop a whole
 * secret's conditional), or a number beyond a double (`1e400` read as ∞, `1e-400` as 0). Returns
 * its path (`spec.priors[0].conditionals.a`) and what is wrong, or null.
 */
/** A JSON number, read whole from where it starts (sticky: no copy of the text, no length cap). */
const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;

function jsonHazard(text: string): { path: string; why: string } | null {
  // One frame per open object/array: the keys seen (objects), the current key or index.
  const stack: { keys?: Set<string>; at: string | number; expectKey: boolean }[] = [];
  const path = () => `spec${stack.map((f) => (typeof f.at === 'number' ? `[${f.at}]` : `.${f.at}`)).join('')}`;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top?.keys && top.expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        top.at = key;
        if (top.keys.has(key)) return { path: path(), why: 'is given twice (a repeated key would silently replace the first)' };
        top.keys.add(key);
        top.expectKey = false;
      }
      i = j;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const literal = NUMBER.exec(text)![0];
      if (Number.isNaN(decimalValue(literal)))
        return { path: path(), why: `${literal} is beyond the range of a double (it would be read as ${Number(literal)})` };
      i += literal.length - 1;
    } else if (c === '{') stack.push({ keys: new Set(), at: '', expectKey: true });
    else if (c === '[') stack.push({ at: 0, expectKey: false });
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top?.keys) top.expectKey = true;
      else if (top) top.at = (top.at as number) + 1;
    }
  }
  return null;
}

/** Throws an InputError naming the first repeated key or out-of-range number, if any. */
export function rejectDuplicateKeys(text: string): void {
  const h = jsonHazard(text);
  if (h) throw new InputError(h.why, h.path);
}
