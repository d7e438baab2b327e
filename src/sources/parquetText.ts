import { parquetMetadata, parquetReadObjects, parquetSchema } from 'hyparquet';
import { InputError } from '../errors.js';
import type { TextTable } from './csvText.js';

/**
 * A cell as the text the delimited-table path would hold: numbers as their shortest round-trip
 * decimal (so a double is the same number when read back), big integers exactly, missing as ''.
 */
function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  if (typeof v === 'bigint' || typeof v === 'boolean' || typeof v === 'string') return String(v);
  if (v instanceof Date) return v.toISOString();
  return JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? String(x) : x));
}

/**
 * A Parquet file (its bytes) as a text table for the page, read with hyparquet (pure JavaScript,
 * browser-safe): every column, every row, values as exact texts. Not Parquet: refused by name.
 */
export async function parquetTable(bytes: ArrayBuffer): Promise<TextTable> {
  const head = new Uint8Array(bytes, 0, Math.min(4, bytes.byteLength));
  if (bytes.byteLength < 12 || String.fromCharCode(...head) !== 'PAR1') throw new InputError('is not a Parquet file (no PAR1 magic bytes)', 'file');
  let columns: string[];
  let objects: Record<string, unknown>[];
  try {
    columns = parquetSchema(parquetMetadata(bytes)).children.map((c) => c.element.name);
    objects = await parquetReadObjects({ file: bytes });
  } catch (e) {
    throw new InputError(`could not be read as Parquet: ${(e as Error).message}`, 'file');
  }
  if (objects.length === 0) throw new InputError('the Parquet file has no rows', 'file');
  return { columns, rows: objects.map((o) => columns.map((c) => cellText(o[c]))) };
}
