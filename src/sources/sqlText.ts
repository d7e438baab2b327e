// SQL text for the engines' queries (browser-safe: no engine, no file access).

/** Double-quoted SQL identifier. */
export const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
/** Single-quoted SQL string literal. */
export const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;
