/**
 * Records keyed by user data (secret names, state names, group values). A plain object literal
 * inherits `constructor`, `toString`, `__proto__`, …: assigning `__proto__` replaces the
 * prototype instead of storing a secret, and `'toString' in record` is true for a record that
 * has no such secret. These records have no prototype, and keys are defined, never assigned.
 */

/**
 * A null-prototype record from entries; every key, `__proto__` included, becomes an own property.
 * @example Object.keys(userRecord([['__proto__', 1], ['a', 2]])) // ['__proto__', 'a']
 */
export function userRecord<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  const out: Record<string, T> = Object.create(null);
  for (const [k, v] of entries) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * Whether `record` has its own key `key` (never an inherited member).
 * @example hasKey({}, 'toString') // false
 */
export function hasKey(record: object, key: string): boolean {
  return Object.hasOwn(record, key);
}
