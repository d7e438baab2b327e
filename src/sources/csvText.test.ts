import { describe, expect, it } from 'vitest';
import { parseDelimited } from './csvText.js';

describe('parseDelimited (d3-dsv)', () => {
  it('keeps quoted separators, quotes and newlines inside one field', () => {
    const t = parseDelimited('x,note\n1,"a, ""b""\nc"\n2,d\n');
    expect(t.columns).toEqual(['x', 'note']);
    expect(t.rows).toEqual([
      ['1', 'a, "b"\nc'],
      ['2', 'd'],
    ]);
  });

  it('sniffs the separator, trims cells, skips blank rows, and reads headerless numeric tables', () => {
    expect(parseDelimited('a;b\n 1 ; 2 \n\n3;4').rows).toEqual([
      ['1', '2'],
      ['3', '4'],
    ]);
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
