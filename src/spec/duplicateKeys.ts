import { InputError } from '../errors.js';

/**
 * Finds a key repeated within one JSON object — `JSON.parse` keeps the last silently, which
 * would drop a whole secret's conditional. Returns its path (`spec.priors[0].conditionals.a`) or
 * null. Assumes `text` is valid JSON (run after `JSON.parse` succeeded).
 */
export function duplicateKeyPath(text: string): string | null {
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
        if (top.keys.has(key)) return path();
        top.keys.add(key);
        top.expectKey = false;
      }
      i = j;
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

/** Throws an InputError naming the first repeated key, if any. */
export function rejectDuplicateKeys(text: string): void {
  const p = duplicateKeyPath(text);
  if (p) throw new InputError('is given twice (a repeated key would silently replace the first)', p);
}
