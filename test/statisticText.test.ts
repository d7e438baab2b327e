// The page's statistics of a text table (no SQL engine) against the CLI's engine path on the same
// files: the same units, totals, left-out rows and contribution laws, for every kind, units and groups.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkStatisticsSource } from '../src/api/sourceLedger.js';
import { statisticFromTable } from '../src/api/statistic.js';
import { statisticFromText, type TableStatistic } from '../src/api/statisticLaws.js';
import type { Discrete } from '../src/distribution/discrete.js';
import { numericColumns, parseDelimited } from '../src/sources/csvText.js';
import { parseStatistic, type Statistic } from '../src/sources/statistic.js';
import { textPredicate } from '../src/sources/textPredicate.js';
import { uciQuirks } from '../src/uci/formats.js';

const dir = mkdtempSync(join(tmpdir(), 'pufferfish-stat-text-'));
const csv = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

/** What both paths must agree on, in plain numbers. */
const summary = (t: TableStatistic) => ({
  groups: t.groups.map((g) => ({
    group: g.group,
    units: g.units,
    total: g.total,
    divisor: g.divisor,
    laws: Object.entries(g.scenario.priors[0].conditionals)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([s, d]) => [s, Array.from((d as Discrete).values), (d as Discrete).numerators.map(String), String((d as Discrete).denominator)]),
  })),
  rows: t.rows,
  droppedFromLaws: t.droppedFromLaws,
  droppedFromValue: t.droppedFromValue,
  zeroed: t.zeroed,
  skipped: t.skipped,
  uninformative: t.uninformative,
});

// Missing values in every column, a unit with a missing value, a unit without a unit value, a
// missing group, a unit whose rows are all without a group, a text column and a number column.
const TABLE = [
  'hh,x,kind,s,region',
  '1,10,red,a,north',
  '1,20,blue,b,north',
  '2,5,red,a,south',
  '3,7,,b,south',
  '3,1,blue,b,south',
  '4,3,red,a,north',
  '5,,red,b,north',
  '5,4,blue,a,north',
  ',6,red,a,south',
  '6,2,red,,south',
  '7,9,blue,b,',
  '7,8,red,a,',
  '8,11,blue,a,north',
  '9,12,red,b,south',
].join('\n');

/** The engine's statistic (its summary) or its refusal ("field: why"), or with `page` the text path's. */
async function outcome(
  file: string,
  text: ReturnType<typeof parseDelimited>,
  o: Parameters<typeof statisticFromText>[1] extends infer T ? Omit<T & object, 'name'> : never,
  page = false,
) {
  try {
    return summary(page ? statisticFromText(text, { ...o, name: 'x' }) : await statisticFromTable(file, o));
  } catch (e) {
    return (e as Error).message;
  }
}

describe("the page's statistics agree with the engine's", () => {
  const file = csv('mixed.csv', `${TABLE}\n`);
  const text = parseDelimited(readFileSync(file, 'utf8'));
  const filled = csv('filled.csv', `${TABLE.replace('\n,6,red,a,south', '\n10,6,red,a,south')}\n`);
  const filledText = parseDelimited(readFileSync(filled, 'utf8'));
  const cases: [string, string | undefined][] = [];
  for (const q of ['sum:x', 'mean:x', 'count', 'share', 'count:x > 4', 'share:x <= 7', "count:kind = 'red'", "share:kind <> 'red'", 'count:X >= 5.5'])
    for (const unit of [undefined, 'hh'])
      for (const groupBy of [undefined, 'region']) cases.push([`${q}${unit ? ` unit ${unit}` : ''}${groupBy ? ` by ${groupBy}` : ''}`, q]);
  it.each(cases)('%s', async (label) => {
    const [, q] = cases.find(([l]) => l === label)!;
    const unit = label.includes(' unit hh') ? 'hh' : undefined;
    const groupBy = label.includes(' by region') ? 'region' : undefined;
    const statistic: Statistic = { ...parseStatistic(q!)!, ...(unit ? { unit } : {}) };
    const o = { statistic, secretColumn: 's', ...(groupBy ? { groupBy } : {}) };
    // A mean of a column with missing values is refused by both, in the same words.
    if (statistic.kind === 'mean') {
      const why = /mean:x: 1 of 14 rows have no number in 'x'/;
      await expect(statisticFromTable(file, o)).rejects.toThrow(why);
      expect(() => statisticFromText(text, { ...o, name: 'x' })).toThrow(why);
      return;
    }
    // The row without a unit value is refused by both, in the same words; with it given one, both agree.
    if (unit) {
      expect(await outcome(file, text, o)).toMatch(/^--unit: 1 of the 14 rows has no value in 'hh'/);
      expect(await outcome(file, text, o)).toBe(await outcome(file, text, o, true));
      expect(await outcome(filled, filledText, o)).toEqual(summary(statisticFromText(filledText, { ...o, name: 'x' })));
      return;
    }
    const engine = await statisticFromTable(file, o);
    const page = statisticFromText(text, { ...o, name: 'x' });
    expect(summary(page)).toEqual(summary(engine));
  });

  it('on a UCI file as shipped (heart: count and share of high cholesterol by fbs, per sex)', async () => {
    const location = 'test/fixtures/uci/heart-disease/processed.cleveland.data.gz';
    const q = uciQuirks(location);
    const t = parseDelimited(gunzipSync(readFileSync(location)).toString('utf8'), {
      separator: q.separator,
      header: q.header,
      columns: q.columns,
      skip: q.skip,
    });
    for (const query of ['count:chol > 240', 'share:chol > 240', 'mean:oldpeak'])
      for (const groupBy of [undefined, 'sex']) {
        const o = { statistic: parseStatistic(query)!, secretColumn: 'fbs', ...(groupBy ? { groupBy } : {}) };
        const engine = await statisticFromTable({ kind: 'csv', location, ...q }, o);
        expect(summary(statisticFromText(t, { ...o, name: 'heart' })), `${query} ${groupBy ?? ''}`).toEqual(summary(engine));
      }
  });

  it('cells as typed by hand read the same on both paths: padded numbers, 1_000, padded secrets, a line of separators, blank lines', async () => {
    // (A predicate compares the column as the engine's sniffer typed it: x here is text to DuckDB, so predicates use y.)
    const quirks = csv('quirks.csv', 'hh,x,s,y\n1, 5 ,a,1\n2,1_000,b,7\n,,,\n\n3,7, a,8\n4,.5,b,2\n5,1_0.2_5,a,9\n6,+2,b,3\n7,  ,a,4\n8,3,  ,5\n');
    const t = parseDelimited(readFileSync(quirks, 'utf8'));
    for (const q of ['sum:x', 'count', 'share', 'count:y > 6', 'share:y <= 5'])
      for (const unit of [undefined, 'hh']) {
        const o = { statistic: { ...parseStatistic(q)!, ...(unit ? { unit } : {}) }, secretColumn: 's' };
        // With units the line of separators is a row without one: refused by both alike.
        expect(await outcome(quirks, t, o, true), `${q} ${unit ?? ''}`).toEqual(await outcome(quirks, t, o));
        if (unit) expect(await outcome(quirks, t, o)).toMatch(/^--unit: 1 of the 9 rows has no value/);
      }
    // ' a' and a blank cell are secret values of their own on both paths (the engines do not trim cells).
    const engine = await statisticFromTable(quirks, { statistic: { kind: 'count' }, secretColumn: 's' });
    expect(Object.keys(engine.groups[0].scenario.priors[0].conditionals).sort()).toEqual(['  ', ' a', 'a', 'b']);
  });

  it('a one-column table reads a blank line as a missing cell and a line of spaces as a value, as the engine does', async () => {
    const one = csv('one.csv', 's\na\nb\n\n  \na\nb\n\n');
    const t = parseDelimited(readFileSync(one, 'utf8'));
    expect(t.rows.map((r) => r[0])).toEqual(['a', 'b', '', '  ', 'a', 'b', '']);
    for (const q of ['count', "share:s = 'a'"]) {
      const o = { statistic: parseStatistic(q)!, secretColumn: 's' };
      const engine = await statisticFromTable(one, o);
      expect(summary(statisticFromText(t, { ...o, name: 'x' })), q).toEqual(summary(engine));
    }
    // Beside another column a blank line is no row on both paths.
    expect(parseDelimited('s,x\na,1\n\nb,2\n').rows).toHaveLength(2);
    // Whether a table has one column is read after the lines skipped (a title line has no separator).
    expect(parseDelimited('title\ns,x\na,1\n\nb,2\n', { skip: 1, separator: ',' }).rows).toEqual([
      ['a', '1'],
      ['b', '2'],
    ]);
  });

  it('a unit across two groups is refused as the engine refuses it', async () => {
    const bad = csv('across.csv', 'hh,x,s,g\n1,1,a,p\n1,2,b,q\n2,3,a,p\n2,1,b,p\n');
    const o = { statistic: { kind: 'sum' as const, column: 'x', unit: 'hh' }, secretColumn: 's', groupBy: 'g' };
    const message = await statisticFromTable(bad, o).then(
      () => '',
      (e: Error) => e.message,
    );
    expect(message).toMatch(/unit '1' has rows in two groups of 'g'/);
    expect(() => statisticFromText(parseDelimited(readFileSync(bad, 'utf8')), { ...o, name: 'x' })).toThrow(message);
  });

  it('rows without a unit are refused on both paths, never dropped (whether a row has one may depend on the secret)', async () => {
    // Every x is 5: dropping the two b-rows without a household left laws that "need no noise".
    const bad = csv('nounit.csv', 'hh,s,x\n1,a,5\n1,a,5\n2,a,5\n3,b,5\n4,b,5\n,b,5\n,b,5\n');
    for (const kind of ['sum', 'mean'] as const) {
      const o = { statistic: { kind, column: 'x', unit: 'hh' }, secretColumn: 's' };
      const message = await statisticFromTable(bad, o).then(
        () => '',
        (e: Error) => e.message,
      );
      expect(message).toBe(
        "--unit: 2 of the 7 rows have no value in 'hh': every row must belong to a unit; give those rows one (their own id where each stands alone) or leave them out of the table",
      );
      expect(() => statisticFromText(parseDelimited(readFileSync(bad, 'utf8')), { ...o, name: 'x' })).toThrow(message);
    }
    // A source ledger on such a table is refused when opened, not at its first release.
    await expect(checkStatisticsSource({ source: { kind: 'csv', location: bad }, secretColumn: 's', unit: 'hh' })).rejects.toThrow(/^--unit: 2 of the 7 rows/);
  });
});

describe('hostile tables (found by a review)', () => {
  it('a row of another width than the header is refused on load; a table built by hand reads each cell by its column', () => {
    expect(() => parseDelimited('x,s\n1,a,\n0,b\n')).toThrow(/data row 1 has 3 cells where the header names 2/);
    expect(() => parseDelimited('x,s\n1,a\n0\n')).toThrow(/data row 2 has 1 cells/);
    // Trailing cells past the header: the contribution is still the row's own (the laws see x, not the stray cell).
    const ragged = {
      columns: ['x', 's'],
      rows: [
        ['1', 'a', '0'],
        ['0', 'b'],
        ['1', 'a', '0'],
        ['0', 'b'],
      ],
    };
    const even = {
      columns: ['x', 's'],
      rows: [
        ['1', 'a'],
        ['0', 'b'],
        ['1', 'a'],
        ['0', 'b'],
      ],
    };
    const o = { statistic: { kind: 'sum' as const, column: 'x' }, secretColumn: 's', name: 't' };
    expect(summary(statisticFromText(ragged, o))).toEqual(summary(statisticFromText(even, o)));
    expect(statisticFromText(ragged, o).uninformative).toBe(false);
  });

  it('a condition on the secret column matches the same rows in the laws and in the value (the engine reads the secret as text in both)', async () => {
    const f = csv('booleans.csv', 'x,s\n1,true\n2,false\n3,true\n4,false\n5,true\n6,false\n7,true\n');
    const t = await statisticFromTable(f, { statistic: parseStatistic("count:s = 'true'")!, secretColumn: 's' });
    const g = t.groups[0];
    expect(g.total).toBe(4);
    expect(t.uninformative).toBe(false);
    const law = (x: string) => Array.from((g.scenario.priors[0].conditionals[x] as Discrete).values);
    expect([law('true'), law('false')]).toEqual([[1], [0]]);
    // 'TRUE' is not the text of any cell: no row meets it, in the value as in the laws (DuckDB would
    // read a boolean column's TRUE as true, and the value would count what the laws do not).
    const upper = await statisticFromTable(f, { statistic: parseStatistic("count:s = 'TRUE'")!, secretColumn: 's' });
    expect(upper.groups[0].total).toBe(0);
    expect(upper.uninformative).toBe(true);
  });

  it('a unit column may not be the secret column (n would count the secret values present)', async () => {
    const f = csv('units.csv', 'x,s,u\n1,a,1\n2,b,2\n3,c,3\n4,a,4\n');
    const o = { statistic: { kind: 'mean' as const, column: 'x', unit: 's' }, secretColumn: 's' };
    await expect(statisticFromTable(f, o)).rejects.toThrow(/--unit: names the secret column 's'/);
    expect(() => statisticFromText(parseDelimited(readFileSync(f, 'utf8')), { ...o, name: 'u' })).toThrow(/names the secret column 's'/);
  });

  it("a hexadecimal, binary or octal cell is not a number on the page (the engines' DOUBLE cast reads none of them)", () => {
    const t = parseDelimited('x,y,s\n1,0x10,a\n2,3,b\n1e2,0b11,a\n');
    expect(numericColumns(t)).toEqual(['x']);
    expect(() => statisticFromText(t, { statistic: { kind: 'sum', column: 'y' }, secretColumn: 's', name: 't' })).toThrow(/column 'y' is not numeric/);
  });

  it("an unknown secret column is named without the page's internal contribution column", () => {
    expect(() =>
      statisticFromText({ columns: ['x', 'S'], rows: [['1', 'a']] }, { statistic: { kind: 'sum', column: 'x' }, secretColumn: 's', name: 't' }),
    ).toThrow(/^(?!.*__pufferfish).*'s'/);
  });
});

describe('a text table condition', () => {
  const t = {
    columns: ['chol', 'Sex', 'note'],
    rows: [
      ['250', 'Male', "it's"],
      ['?', 'Female', ''],
      ['240', 'Male', 'x'],
    ],
  };
  const matches = (text: string) => t.rows.map(textPredicate(text, t));
  it('reads a comparison as SQL does: numbers as numbers, names without case, missing cells never', () => {
    expect(matches('chol > 240')).toEqual([true, false, false]);
    expect(matches('chol >= 240')).toEqual([true, false, true]);
    expect(matches("chol = '240'")).toEqual([false, false, true]);
    expect(matches('chol != 240')).toEqual([true, false, false]);
    expect(matches("sex = 'Male'")).toEqual([true, false, true]);
    expect(matches(`"Sex" <> 'Male'`)).toEqual([false, true, false]);
    expect(matches("note = 'it''s'")).toEqual([true, false, false]);
    expect(matches('chol < 1e3')).toEqual([true, false, true]);
  });
  it.each([
    ['chol > 240 AND Sex = 1', /not one comparison/],
    ['chol >', /not one comparison/],
    ["chol > 'high'", /numeric column 'chol' with 'high'/],
    ['Sex = 1', /text column 'Sex' with a number: quote the value/],
    ["Sex < 'M'", /orders the text column 'Sex'/],
    ['age > 3', /age/],
  ])('refuses %s, naming why', (text, why) => {
    expect(() => textPredicate(text, t)).toThrow(why);
  });
});
