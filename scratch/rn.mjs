import { DuckDBInstance } from '@duckdb/node-api';
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const f = '../shared/datasets/uci/adult/adult.data';
for (const [threads, cols] of [[1, "{'column0':'VARCHAR'}"], [2, "{'column0':'VARCHAR'}"], [2, "{'column14':'VARCHAR'}"], [4, "{}"]]) {
  await con.run(`SET threads=${threads}`);
  const rel = `read_csv('${f}', header=false, names=['column0','column1','column2','column3','c4','c5','c6','c7','c8','c9','c10','c11','c12','c13','column14'], types=${cols})`;
  const r = (await con.runAndReadAll(`SELECT CAST(sum(hash(rn, CAST(column0 AS VARCHAR), CAST(column3 AS VARCHAR))) AS VARCHAR) AS h, count(*) AS n FROM (SELECT *, row_number() OVER () AS rn FROM ${rel})`)).getRowObjects();
  const r2 = (await con.runAndReadAll(`SELECT hash(7, 'a', 3) AS h1, hash('x') >> 11 AS h2`)).getRowObjects();
  console.log(threads, cols, r[0], r2[0]);
}
