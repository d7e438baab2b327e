import { describe, expect, it } from 'vitest';
import { cellNumber, columnSummaries, distinctValues, numericColumns, parseDelimited } from './csvText.js';

describe('parseDelimited (d3-dsv)', () => {
  it('keeps quoted separators, quotes and newlines inside one field', () => {
    const t = parseDelimited('x,note\n1,"a, ""b""\nc"\n2,d\n');
    expect(t.columns).toEqual(['x', 'note']);
    expect(t.rows).toEqual([
      ['1', 'a, "b"\nc'],
      ['2', 'd'],
    ]);
  });

  it('sniffs the separator, keeps cells as the engines read them, skips blank lines, and reads headerless numeric tables', () => {
    // Cells are not trimmed (DuckDB keeps ' a' and 'a' apart); header names are; a line of separators is a row of missing cells.
    const t = parseDelimited(' a ;b\n 1 ; 2 \n\n;\n3;4');
    expect(t.columns).toEqual(['a', 'b']);
    expect(t.rows).toEqual([
      [' 1 ', ' 2 '],
      ['', ''],
      ['3', '4'],
    ]);
    // Numbers are read as the engines' DOUBLE cast reads them: spaces around, `_` between digits.
    expect([' 1 ', '1_000', '1_000.5', '.5', '5.', '+5', '1e1_0', '1.0_0'].map(cellNumber)).toEqual([1, 1000, 1000.5, 0.5, 5, 5, 1e10, 1]);
    for (const bad of ['1__0', '_1', '1_', '0x10', '0b11', '1,5', '1 000', 'e3', '.', '-', 'inf', 'NaN', '- 5']) expect(cellNumber(bad), bad).toBeNaN();
    expect(numericColumns({ columns: ['x'], rows: [[' 5 '], ['1_000'], ['  '], ['?']] })).toEqual(['x']);
    expect(parseDelimited('1,2\n3,4').columns).toEqual(['column0', 'column1']);
    expect(parseDelimited('39, State-gov, 13\n50, Self-emp, 13', { separator: ', ', header: false }).rows[1]).toEqual(['50', 'Self-emp', '13']);
  });

  it('refuses empty, header-only and binary input by name', () => {
    expect(() => parseDelimited('  \n')).toThrow('file: the file is empty');
    expect(() => parseDelimited('x,y\n')).toThrow('file: the file has a header but no rows');
    expect(() => parseDelimited('PAR1\u0000\u0001')).toThrow(/not a delimited text table \(it contains NUL bytes\)/);
    expect(() => parseDelimited('\uFFFD'.repeat(50) + 'abc')).toThrow(/are not UTF-8 text/);
  });
});

describe('columnSummaries and distinctValues (the data preview)', () => {
  const t = parseDelimited('score,group,code,note\n1.5,a,01,x\n?,b,1,\n3,a,001,y\n2e0,a,1,1\nabc,b,1,2\n');
  it('says which columns are numbers, what is missing, and why a column cannot be a query', () => {
    const [score, group, code, note] = columnSummaries(t);
    expect(score).toEqual({ name: 'score', numeric: false, present: 4, missing: 1, distinct: 4, nonNumeric: 1, examples: ['abc'] });
    expect(group).toMatchObject({ numeric: false, present: 5, missing: 0, distinct: 2, nonNumeric: 5, examples: ['a', 'b'] });
    expect(code).toMatchObject({ numeric: true, distinct: 3, min: 1, max: 1, nonNumeric: 0 });
    expect(note).toMatchObject({ numeric: false, missing: 1, nonNumeric: 2, examples: ['x', 'y'] });
    // The preview and the query list agree.
    expect(numericColumns(t)).toEqual(
      columnSummaries(t)
        .filter((c) => c.numeric)
        .map((c) => c.name),
    );
  });
  it('keeps distinct secret texts apart and reports how many there are beyond the limit', () => {
    expect(distinctValues(t, 'code')).toEqual({ values: ['1', '01', '001'], total: 3 });
    expect(distinctValues(t, 'code', 1)).toEqual({ values: ['1'], total: 3 });
  });
});
