/** What the aggregation needs of a table engine: the relation, its columns, a cast, and SQL rows. */
export interface Engine {
  columns(): Promise<{ name: string; numeric: boolean; type: string }[]>;
  check(predicate: string): Promise<void>;
  rows(sql: string): Promise<Record<string, unknown>[]>;
  /** The rows in chunks, where the engine can stream them (else `rows` in one). */
  batches?(sql: string): AsyncIterable<Record<string, unknown>[]>;
  relation: string;
  /**
   * The relation reads the query, secret and public columns as text (DuckDB files): their types need
   * no check before the aggregation, so `columns()` may run alongside it (its names are checked
   * before any row is used).
   */
  readsAsText?: boolean;
  tryCast: (expr: string) => string;
  /**
   * The rows' fingerprint: their number and an order-free sum of one hash per row (SQL), so a
   * ledger bound to a table notices when its rows change.
   */
  fingerprint: string;
  /** SQL: the integer of the first 52 bits (13 hex digits) of a text expression's md5, as both engines compute it. */
  md5Bits: (text: string) => string;
  /** SQL: a relation of the integers 0…n in one column `i`. */
  integers: (n: number) => string;
  /** SQL: a row's position in the file as text (files only: a database's rows have no fixed order). */
  rowPosition?: string;
  /** With `rowPosition`: an order-free sum of hashes of each row with its position (`h`), which binds the rows' order. */
  orderFingerprint?: string;
  close(): Promise<void>;
}

/** A driver's error, first line, without its class prefix (never the connection string). */
export const short = (msg: string) =>
  msg
    .split('\n')[0]
    .replace(/^[A-Za-z ]*Error: /, '')
    .slice(0, 200);
