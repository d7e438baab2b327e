import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { duckdb } from './engines/drivers.js';
import { refuseKeptReads } from './privatize.js';
import type { TableSource } from './table.js';

describe('--keep: the engine binds each predicate without the kept columns', () => {
  it('refuses a predicate that reads a kept column however it is spelled, and takes one that does not', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pf-keep-')), 't.csv');
    writeFileSync(file, 'x,fbs,age\n1,0,50\n2,1,60\n3,0,40\n');
    const source: TableSource = { kind: 'csv', location: file };
    const inst = await duckdb().DuckDBInstance.create(':memory:');
    const con = await inst.connect();
    try {
      const cols = ['x', 'fbs', 'age'];
      for (const pred of ['FBS = 1', '"Fbs" = 1', 'fbs + 0 = 1', "struct_extract(t, 'fbs') = 1"])
        await expect(refuseKeptReads(con, source, cols, ['fbs'], { a: pred }), pred).rejects.toThrow(/reads a column of --keep \(fbs\)/);
      await expect(refuseKeptReads(con, source, cols, ['age'], { a: 'fbs = 1', b: 'fbs = 0' })).resolves.toBeUndefined();
    } finally {
      con.closeSync();
      inst.closeSync();
    }
  });
});
