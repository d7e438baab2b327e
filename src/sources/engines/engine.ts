/** What the aggregation needs of a table engine: the relation, its columns, a cast, and SQL rows. */
export interface Engine {
  columns(): Promise<{ name: string; numeric: boolean; type: string }[]>;
  check(predicate: string): Promise<void>;
  rows(sql: string): Promise<Record<string, unknown>[]>;
  relation: string;
  tryCast: (expr: string) => string;
  close(): Promise<void>;
}

/** A driver's error, first line, without its class prefix (never the connection string). */
export const short = (msg: string) =>
  msg
    .split('\n')[0]
    .replace(/^[A-Za-z ]*Error: /, '')
    .slice(0, 200);
