import { DuckDBInstance } from '@duckdb/node-api';
const con = await (await DuckDBInstance.create(':memory:')).connect();
const r = (await con.runAndReadAll(`SELECT CAST(ud AS VARCHAR) AS a, CAST(udate AS VARCHAR) AS b, typeof(ud) t1, typeof(udate) t2 FROM read_parquet('/tmp/atk/probe/u.parquet') LIMIT 3`)).getRowObjects();
console.log(r);
