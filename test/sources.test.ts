import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseDelimited, textHistograms } from '../src/sources/csvText.js';
import { tableHistograms } from '../src/sources/histograms.js';
import { binomial, seededUniform } from '../src/sources/priors.js';
import { HAVE_UCI, UCI_DIR } from './uci.js';
import { runInProcess as inProcess } from './inProcess.js';

const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
const dir = mkdtempSync(join(tmpdir(), 'pufferfish-src-'));
const scaleOf = (r: { stdout: string }) => JSON.parse(r.stdout).results.map((x: { scale: number }) => x.scale);

// A small table written as CSV (with and without header), TSV, Parquet and JSON lines.
const ROWS = [
  ['age', 'sex', 'income', 'group'],
  ...Array.from({ length: 60 }, (_, i) => [20 + (i % 40), i % 3 === 0 ? 'F' : 'M', String((i * 7) % 13), i % 4 === 0 ? 'a' : i % 4 === 1 ? 'b' : 'c']),
  ['?', 'F', '3', 'a'], // missing age: fine unless age is used
  ['30', 'M', '?', 'b'], // missing query: dropped
];
beforeAll(async () => {
  writeFileSync(join(dir, 't.csv'), ROWS.map((r) => r.join(',')).join('\n') + '\n');
  writeFileSync(
    join(dir, 'nohead.csv'),
    ROWS.slice(1)
      .map((r) => r.join(','))
      .join('\n') + '\n',
  );
  // Two columns whose names differ only in case: DuckDB renames the second and matches `"AGE"` to `age`.
  writeFileSync(join(dir, 'cases.csv'), 'age,AGE,group\n30,1,a\n40,2,b\n50,3,a\n');
  writeFileSync(join(dir, 't.tsv'), ROWS.map((r) => r.join('\t')).join('\n') + '\n');
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  const src = `read_csv('${join(dir, 't.csv')}', nullstr = ['?'])`;
  await con.run(`COPY (SELECT * FROM ${src}) TO '${join(dir, 't.parquet')}' (FORMAT parquet)`);
  await con.run(`COPY (SELECT * FROM ${src}) TO '${join(dir, 't.jsonl')}' (FORMAT json)`);
  con.closeSync();
  inst.closeSync();
});

describe('table sources', () => {
  it('every file kind gives the same histograms', async () => {
    const base = await tableHistograms({ kind: 'csv', location: join(dir, 't.csv') }, { query: 'income', secretColumn: 'group' });
    expect(base.rows).toBe(62);
    expect(base.dropped).toBe(1);
    expect(base.secrets).toEqual(['a', 'b', 'c']);
    const others = await Promise.all([
      tableHistograms(
        { kind: 'csv', location: join(dir, 'nohead.csv'), header: false, columns: ['age', 'sex', 'income', 'group'] },
        { query: 'income', secretColumn: 'group' },
      ),
      tableHistograms({ kind: 'csv', location: join(dir, 't.tsv'), separator: '\t' }, { query: 'income', secretColumn: 'group' }),
      tableHistograms({ kind: 'parquet', location: join(dir, 't.parquet') }, { query: 'income', secretColumn: 'group' }),
      tableHistograms({ kind: 'json', location: join(dir, 't.jsonl') }, { query: 'income', secretColumn: 'group' }),
    ]);
    for (const o of others) expect(o.groups).toEqual(base.groups);
  });

  it("a vector query: the page's text path and the DuckDB path give the same joint laws", async () => {
    const q = { query: 'age', queries: ['age', 'income'], secretColumn: 'group' };
    const duck = await tableHistograms({ kind: 'csv', location: join(dir, 't.csv') }, q);
    const text = textHistograms(parseDelimited(readFileSync(join(dir, 't.csv'), 'utf8')), q);
    // Atom numbers follow the order met (rows vs groups): compare the vectors' counts.
    const laws = (h: typeof duck) =>
      Object.fromEntries(
        [...h.groups.get('')!].map(([s, hist]) => [s, Object.fromEntries(hist.values.map((id, k) => [h.vectors![id].join(','), hist.counts[k]]))]),
      );
    expect(text.dropped).toBe(duck.dropped);
    expect(text.dropped).toBe(2); // a missing age, a missing income
    expect(laws(text)).toEqual(laws(duck));
    expect(() => textHistograms(parseDelimited('a,b,g\n1,2,x\n'), { query: 'a', queries: ['a', 'a'], secretColumn: 'g' })).toThrow(
      'query: names a column twice',
    );
  });

  it('predicates may overlap; --given splits pairs by the public value', async () => {
    const h = await tableHistograms(
      { kind: 'csv', location: join(dir, 't.csv') },
      { query: 'income', predicates: { older: 'age >= 40', young: 'age < 30', all: 'true' } },
    );
    const g = h.groups.get('')!;
    const total = (k: string) => g.get(k)!.counts.reduce((a, b) => a + b, 0);
    expect(total('all')).toBe(61);
    expect(total('older') + total('young')).toBeLessThan(61);
    const gv = await tableHistograms({ kind: 'csv', location: join(dir, 't.csv') }, { query: 'income', secretColumn: 'group', given: 'sex' });
    expect([...gv.groups.keys()]).toEqual(['F', 'M']);
    const r = await inProcess(
      'calibrate',
      '--data',
      join(dir, 't.csv'),
      '--query',
      'income',
      '--secret-column',
      'group',
      '--given',
      'sex',
      '--method',
      'theorem',
      '--json',
    );
    expect(r.status).toBe(0);
    const res = JSON.parse(r.stdout).results[0];
    expect(res.binding.prior).toMatch(/^empirical \| sex=(F|M)$/);
    expect(res.pairs).toHaveLength(6); // 3 pairs × 2 public values
  });

  it.runIf(HAVE_UCI)('the UCI files give exactly the built-in scenarios', async () => {
    const cases: [string, string[], string][] = [
      [
        'adult',
        ['--data', join(UCI_DIR, 'adult/adult.data'), '--query', 'education-num', '--secret-column', 'relationship', '--values', 'Husband,Not-in-family'],
        'adult',
      ],
      [
        'heart',
        ['--data', join(UCI_DIR, 'heart-disease/processed.cleveland.data'), '--query', 'oldpeak', '--secret-column', 'fbs', '--values', '0,1'],
        'heart',
      ],
      [
        'student-mat',
        ['--data', join(UCI_DIR, 'student/student-mat.csv'), '--query', 'G3', '--secret-column', 'guardian', '--values', 'mother,father'],
        'student-mat',
      ],
      [
        'student-por',
        ['--data', join(UCI_DIR, 'student/student-por.csv'), '--query', 'G3', '--secret-column', 'guardian', '--values', 'mother,father'],
        'student-por',
      ],
    ];
    for (const [, args, id] of cases) {
      const common = ['--alpha', '2', '--epsilon', '1', '--method', 'theorem', '--json'];
      const fromData = JSON.parse((await inProcess('calibrate', ...args, ...common)).stdout).results;
      const builtin = JSON.parse((await inProcess('calibrate', '--scenario', id, ...common)).stdout).results;
      expect(fromData.map((r: { scale: number; binding: unknown }) => [r.scale, r.binding])).toEqual(
        builtin.map((r: { scale: number; binding: unknown }) => [r.scale, r.binding]),
      );
    }
  });

  it('--spec-out reproduces the run without the data', async () => {
    const spec = join(dir, 'derived.json');
    const a = await inProcess(
      'calibrate',
      '--data',
      join(dir, 't.csv'),
      '--query',
      'income',
      '--secret-column',
      'group',
      '--prior',
      'dirichlet:3:0.5',
      '--seed',
      '4',
      '--spec-out',
      spec,
      '--method',
      'theorem',
      '--json',
    );
    const b = await inProcess('calibrate', '--spec', spec, '--method', 'theorem', '--json');
    expect(scaleOf(b)).toEqual(scaleOf(a));
    expect(JSON.parse(readFileSync(spec, 'utf8')).priors).toHaveLength(4); // empirical + 3 draws
  });

  it('robust prior classes contain the empirical prior, are seeded, and report their spread', async () => {
    const args = ['calibrate', '--data', join(dir, 't.csv'), '--query', 'income', '--secret-column', 'group', '--method', 'theorem', '--json'];
    for (const cls of ['bootstrap:15', 'dirichlet:15', 'dirichlet:15:3']) {
      const a = await inProcess(...args, '--prior', cls, '--seed', '7'),
        b = await inProcess(...args, '--prior', cls, '--seed', '7'),
        c = await inProcess(...args, '--prior', cls, '--seed', '8');
      expect(a.stdout).toBe(b.stdout);
      expect(a.stdout).not.toBe(c.stdout);
      const r = JSON.parse(a.stdout).results[0];
      expect(r.spread.priors).toBe(16);
      expect(r.pairs.some((p: { prior: string }) => p.prior === 'empirical')).toBe(true);
      const emp = JSON.parse((await inProcess(...args)).stdout).results[0].scale;
      expect(r.scale).toBeGreaterThanOrEqual(emp); // the class contains the empirical prior
      expect(r.spread.max).toBe(r.scale);
    }
  });

  it('binomial sampler matches its mean and variance', () => {
    const u = seededUniform(1);
    const xs = Array.from({ length: 20000 }, () => binomial(1000, 0.3, u));
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    const v = xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length;
    expect(Math.abs(m - 300)).toBeLessThan(6 * Math.sqrt(210 / 20000));
    expect(Math.abs(v / 210 - 1)).toBeLessThan(0.05);
  });
});

describe('release --out: the privatized column, and only the public columns asked for', () => {
  it('writes the query column row by row (missing stays missing) plus --keep columns unchanged; never the secret column', async () => {
    for (const ext of ['csv', 'parquet', 'jsonl']) {
      const out = join(dir, `private.${ext}`);
      const r = await inProcess(
        'release',
        '--data',
        join(dir, 't.csv'),
        '--query',
        'income',
        '--secret-column',
        'group',
        '--mechanism',
        'gaussian',
        '--method',
        'theorem',
        '--out',
        out,
        '--keep',
        'age,sex',
        '--json',
      );
      expect(r.status).toBe(0);
      const info = JSON.parse(r.stdout);
      expect(info).toMatchObject({ rows: 62, missing: 1, mechanism: 'gaussian', columns: ['income', 'age', 'sex'] });
      const inst = await DuckDBInstance.create(':memory:');
      const con = await inst.connect();
      const read = async (rel: string) => (await con.runAndReadAll(`SELECT * FROM ${rel}`)).getRowObjectsJson();
      const [a, b] = [await read(`read_csv('${join(dir, 't.csv')}', nullstr = ['?'], all_varchar = true)`), await read(`'${out}'`)];
      expect(b).toHaveLength(a.length);
      expect(Object.keys(b[0]).sort()).toEqual(['age', 'income', 'sex']);
      let changed = 0;
      a.forEach((row, i) => {
        for (const k of ['age', 'sex']) expect(b[i][k] === null ? null : String(b[i][k])).toEqual(row[k]);
        if (row.income === null) expect(b[i].income).toBeNull();
        else if (Number(b[i].income) !== Number(row.income)) changed++;
      });
      expect(changed).toBe(61);
      con.closeSync();
      inst.closeSync();
    }
  });

  it('hostile outputs: never over the input, never another file, known formats only, --truncate applied, --count refused', async () => {
    const t = join(dir, 't.csv');
    const before = readFileSync(t, 'utf8');
    writeFileSync(join(dir, 'tmp_o.csv'), 'keep me');
    const base = ['release', '--data', t, '--query', 'income', '--secret-column', 'group', '--method', 'theorem'];
    for (const [args, msg] of [
      [['--out', t], /^error: --out: .* is the input of --data; refusing to write over it/],
      [['--spec-out', t, '--out', join(dir, 'o.csv')], /^error: --spec-out: .* is the input of --data/],
      [['--out', join(dir, 'o.xlsx')], /^error: --out: unknown output format '\.xlsx'/],
      [['--out', join(dir, 'nope', 'o.csv')], /^error: --out: folder '.*nope' does not exist/],
      [['--out', join(dir, 'o.csv'), '--keep', 'group'], /^error: --keep: 'group' is the secret column and is never written/],
      [['--out', join(dir, 'o.csv'), '--count', '3'], /^error: --count: draws one release per row with --out/],
    ] as [string[], RegExp][]) {
      const r = await inProcess(...base, ...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(msg);
    }
    expect(readFileSync(t, 'utf8')).toBe(before);
    const out = join(dir, 'o.csv');
    const r = await inProcess(...base, '--out', out, '--truncate', '0,inf');
    expect(r.status).toBe(0);
    expect(readFileSync(join(dir, 'tmp_o.csv'), 'utf8')).toBe('keep me');
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    // Each row's interval of the truncated law beside it (empty where the value is missing).
    const [column] = lines[0].split(',');
    expect(lines[0]).toBe(`${column},${column}_lo,${column}_hi`);
    const rows = lines.slice(1).map((l) => l.split(','));
    const xs = rows.filter((r) => r[0] !== '').map((r) => Number(r[0]));
    expect(xs).toHaveLength(61);
    for (const x of xs) expect(x).toBeGreaterThanOrEqual(0);
    for (const [x, lo, hi] of rows) expect(x === '' ? lo === '' && hi === '' : Number(lo) >= 0 && Number(lo) <= Number(hi)).toBe(true);
  });
});

describe('table source bad input: exit 2, one line', () => {
  const t = join(dir, 't.csv');
  it.each([
    ['missing file', ['--data', join(dir, 'nope.csv'), '--query', 'income', '--secret-column', 'group'], /^error: --data: file '.*nope\.csv' does not exist/],
    [
      'unknown column',
      ['--data', t, '--query', 'salary', '--secret-column', 'group'],
      /^error: --query: unknown column 'salary' \(columns: age, sex, income, group\)/,
    ],
    [
      'column named in another case (DuckDB would match it)',
      ['--data', join(dir, 'cases.csv'), '--query', 'AGE', '--secret-column', 'group'],
      /^error: --query: unknown column 'AGE' \(columns: age, AGE_1, group\)/,
    ],
    [
      'a separator the file does not use: the one it probably does',
      ['--data', t, '--query', 'income', '--secret-column', 'group', '--separator', ';'],
      /^error: --query: unknown column 'income' \(columns: age,sex,income,group\); the table was read as one column 'age,sex,income,group': is the separator ','\? \(--separator\)\n$/,
    ],
    ['unknown secret column', ['--data', t, '--query', 'income', '--secret-column', 'Group'], /^error: --secret-column: unknown column 'Group'/],
    ['unknown public column', ['--data', t, '--query', 'income', '--secret-column', 'group', '--given', 'gender'], /^error: --given: unknown column 'gender'/],
    [
      'non-numeric query',
      ['--data', t, '--query', 'sex', '--secret-column', 'group'],
      /^error: --query: column 'sex' is not numeric \(no value parses as a number\)/,
    ],
    [
      'rejected predicate',
      ['--data', t, '--query', 'income', '--secret', 'x=agee > 3', '--secret', 'y=true'],
      /^error: --secret: the predicate of 'x' was rejected: .*agee/,
    ],
    ['secret with no rows', ['--data', t, '--query', 'income', '--secret-column', 'group', '--values', 'a,zzz'], /^error: --values: secret 'zzz' has no rows/],
    [
      'single secret',
      ['--data', t, '--query', 'income', '--secret-column', 'group', '--values', 'a'],
      /^error: --secret-column: needs at least two secrets, found 1/,
    ],
    ['no --query', ['--data', t, '--secret-column', 'group'], /^error: --query: is required with --data/],
    [
      'second statement in a predicate',
      ['--data', t, '--query', 'income', '--secret', `x=1=1); COPY (SELECT 1) TO '${join(dir, 'pwned.csv')}'; SELECT (1`, '--secret', 'y=true'],
      /^error: --secret: the predicate of 'x' must be one SQL expression \(no ';'\)/,
    ],
    [
      // Dollar quoting hides ')' and ';' from a scan that knows only '…' strings.
      'second statement hidden in dollar quotes',
      [
        '--data',
        t,
        '--query',
        'income',
        '--secret',
        `x=age > 3 OR $$'$$ = $$a$$); COPY (SELECT 1) TO $$${join(dir, 'pwned2.csv')}$$; SELECT (1=1 OR $$'$$ = $$b$$`,
        '--secret',
        'y=true',
      ],
      /^error: --secret: the predicate of 'x' uses '\$' \(dollar quoting or a parameter\)/,
    ],
    [
      'a prefixed string',
      ['--data', t, '--query', 'income', '--secret', "x=E'\\'' = E'\\''", '--secret', 'y=true'],
      /^error: --secret: the predicate of 'x' uses a prefixed string \(E'…'\)/,
    ],
    [
      // A cast of another file's text would echo it in the engine's error; the engine may read only the data file.
      'a predicate reading another file',
      ['--data', t, '--query', 'income', '--secret', `x=CAST((SELECT content FROM read_text('${join(dir, 'private.txt')}')) AS INT) > 0`, '--secret', 'y=true'],
      /^error: --secret: the predicate of 'x' was rejected: Cannot access file .*private\.txt" - file system operations are disabled/,
    ],
    [
      'predicate escaping its parentheses',
      ['--data', t, '--query', 'income', '--secret', 'x=1=1) OR (1=1', '--secret', 'y=true'],
      /^error: --secret: the predicate of 'x' closes a parenthesis it did not open/,
    ],
    [
      'comment in a predicate',
      ['--data', t, '--query', 'income', '--secret', 'x=age > 3 --', '--secret', 'y=true'],
      /^error: --secret: the predicate of 'x' must be one SQL expression \(no comments\)/,
    ],
    [
      'malformed postgres URL',
      ['--data', 'postgres://u@127.0.0.1:99999/db', '--table', 't', '--query', 'x', '--secret-column', 'y'],
      /^error: --data: cannot reach the database/,
    ],
    [
      'bad prior',
      ['--data', t, '--query', 'income', '--secret-column', 'group', '--prior', 'bootstrap'],
      /^error: --prior: must be empirical, bootstrap:N or dirichlet:N/,
    ],
    [
      'unreachable database',
      ['--data', 'postgres://nobody@127.0.0.1:1/none', '--table', 't', '--query', 'x', '--secret-column', 'y'],
      /^error: --data: cannot reach the database/,
    ],
  ])('%s', async (_n, args, msg) => {
    writeFileSync(join(dir, 'private.txt'), 'the curator-only note\n');
    const r = await inProcess('calibrate', ...(args as string[]));
    expect(r.stderr).not.toMatch(/curator-only/);
    expect(existsSync(join(dir, 'pwned.csv')) || existsSync(join(dir, 'pwned2.csv'))).toBe(false);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(msg as RegExp);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

// Issue "never too little noise": hostile tables that once changed the numbers silently.
describe('input integrity: values reach the calibration unaltered', () => {
  const ints = Array.from({ length: 30000 }, (_, i) => `${i % 5},${i % 2 ? 'a' : 'b'}`);
  beforeAll(() => {
    writeFileSync(join(dir, 'late-decimal.csv'), ['x,s', ...ints, '0.4,a'].join('\n') + '\n');
    writeFileSync(join(dir, 'early-decimal.csv'), ['x,s', '0.4,a', ...ints].join('\n') + '\n');
    writeFileSync(
      join(dir, 'late-decimal.jsonl'),
      [...ints, '0.4,a']
        .map((l) => {
          const [x, s] = l.split(',');
          return JSON.stringify({ x: Number(x), s });
        })
        .join('\n') + '\n',
    );
    writeFileSync(join(dir, 'zeros.csv'), ['x,s', '1,01', '2,01', '3,1', '5,1', '4,001'].join('\n') + '\n');
    writeFileSync(join(dir, 'q[1].csv'), ['x,s', '0,a', '1,b'].join('\n') + '\n');
    writeFileSync(join(dir, 'q1.csv'), ['x,s', '0,a', '9,b'].join('\n') + '\n');
  });
  const coupled = (file: string, ...extra: string[]) =>
    cli('calibrate', '--data', join(dir, file), '--query', 'x', '--secret-column', 's', '--method', 'coupled', '--json', ...extra);

  it('a decimal after 30,000 integers is not rounded (CSV and JSON lines; row order does not matter)', () => {
    const late = coupled('late-decimal.csv'),
      early = coupled('early-decimal.csv'),
      json = coupled('late-decimal.jsonl');
    for (const r of [late, early, json]) expect(r.status).toBe(0);
    expect(scaleOf(late)[0]).toBeGreaterThan(0);
    expect(scaleOf(late)).toEqual(scaleOf(early));
    expect(scaleOf(json)).toEqual(scaleOf(early));
    expect(JSON.parse(late.stdout).source.dropped).toBe(0);
  });

  it('secret texts 01, 1 and 001 stay three secrets; a typed name matches only a unique text', async () => {
    const r = coupled('zeros.csv');
    expect(r.status).toBe(0);
    const pairs = JSON.parse(r.stdout)
      .results[0].pairs.map((p: { pair: string[] }) => [...p.pair].sort().join(':'))
      .sort();
    expect(pairs).toEqual(['001:01', '001:1', '01:1']);
    const amb = await inProcess('calibrate', '--data', join(dir, 'zeros.csv'), '--query', 'x', '--secret-column', 's', '--values', '1.0,001');
    expect(amb.status).toBe(2);
    expect(amb.stderr).toMatch(/secret '1\.0' has no rows \('001', '01', '1' are distinct values with that number; name one\)/);
  });

  it('a repeated --secret name and repeated --values are errors, not silently dropped', async () => {
    const t = join(dir, 't.csv');
    const r = await inProcess('calibrate', '--data', t, '--query', 'income', '--secret', 'x=age > 30', '--secret', 'x=age <= 30');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: --secret: secret 'x' is given twice/);
    const v = await inProcess('calibrate', '--data', t, '--query', 'income', '--secret-column', 'group', '--values', 'a,b,a');
    expect(v.status).toBe(2);
    expect(v.stderr).toMatch(/^error: --values: secret 'a' is given twice/);
  });

  it('a path is a path: glob characters read exactly that file, a directory is refused', async () => {
    const r = coupled('q[1].csv');
    expect(r.status).toBe(0);
    expect(scaleOf(r)).not.toEqual(scaleOf(coupled('q1.csv')));
    const d = await inProcess('calibrate', '--data', dir, '--query', 'x', '--secret-column', 's');
    expect(d.status).toBe(2);
    expect(d.stderr).toMatch(/is not a regular file/);
  });
});
