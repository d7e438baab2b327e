import { DuckDBInstance } from '@duckdb/node-api';
const con = await (await DuckDBInstance.create(':memory:')).connect();
for (const q of [`SELECT md5('a') AS m`, `SELECT CAST('0x' || substr(md5('a'),1,13) AS BIGINT) AS b`, `SELECT md5_number_upper('a') AS u`, `SELECT version() AS v`])
  try { console.log((await con.runAndReadAll(q)).getRowObjects()[0]); } catch (e) { console.log('ERR', e.message.split('\n')[0]); }
