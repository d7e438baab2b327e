import { extname } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { CalibrationSettings } from '../calibrate/rules.js';
import type { Scenario } from '../calibrate/scenario.js';
import { InputError } from '../errors.js';
import { duckRelation, ident, literal, type TableSource } from '../sources/table.js';
import { releaseColumn, type ReleaseOptions } from './release.js';

/**
 * Writes a copy of a table with the `query` column privatized row by row (`releaseColumn`:
 * one calibration on the scenario, independent noise per row; missing values stay missing).
 * The output format follows `out`'s extension: .parquet, .json/.jsonl (JSON lines), else CSV.
 */
export async function privatizeTable(source: TableSource, query: string, scenario: Scenario, settings: CalibrationSettings, out: string, opts: Omit<ReleaseOptions, 'count'> = {}) {
  if (source.kind === 'postgres') throw new InputError('--out writes a privatized copy of a file source; export the table to a file first', '--out');
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  try {
    await con.run(`CREATE TABLE src AS SELECT row_number() OVER () AS __rid, * FROM ${duckRelation(source)}`);
    const xs = (await con.runAndReadAll(`SELECT TRY_CAST(${ident(query)} AS DOUBLE) AS x FROM src ORDER BY __rid`)).getRowObjects().map((r) => (r.x === null ? null : Number(r.x)));
    const r = releaseColumn(scenario, settings, xs, opts);
    await con.run('CREATE TABLE noisy (__rid BIGINT, v DOUBLE)');
    const app = await con.createAppender('noisy');
    r.values.forEach((v, i) => {
      app.appendBigInt(BigInt(i + 1));
      if (v === null) app.appendNull();
      else app.appendDouble(v);
      app.endRow();
    });
    app.closeSync();
    await con.run(`ALTER TABLE src ALTER ${ident(query)} TYPE DOUBLE`);
    await con.run(`UPDATE src SET ${ident(query)} = noisy.v FROM noisy WHERE src.__rid = noisy.__rid`);
    const ext = extname(out).toLowerCase();
    const format = ext === '.parquet' ? '(FORMAT parquet)' : ext === '.json' || ext === '.jsonl' ? '(FORMAT json)' : '(FORMAT csv, HEADER)';
    await con.run(`COPY (SELECT * EXCLUDE (__rid) FROM src ORDER BY __rid) TO ${literal(out)} ${format}`);
    return { ...r, rows: xs.length, values: undefined };
  } finally {
    con.closeSync();
    inst.closeSync();
  }
}
