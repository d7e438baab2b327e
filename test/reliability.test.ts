import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { calibrate } from '../src/calibrate/calibrate.js';
import { parseAnySpecText } from '../src/spec/load.js';
import { SETTINGS, type SettingDecl } from '../src/settings.js';
import { runInProcess as inProcess } from './inProcess.js';

// Defects a hostile or unlucky user found that gave too little noise or published a secret: each
// test here failed before its fix.
const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000 });
const dir = mkdtempSync(join(tmpdir(), 'pufferfish-reliability-'));
const file = (name: string, text: string) => {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
};
const scales = (stdout: string) => (JSON.parse(stdout).results as { scale: number }[]).map((r) => r.scale);

describe('secrets named like Object.prototype members', () => {
  const names = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'prototype', 'valueOf'];
  const rows = names.flatMap((n, k) => Array.from({ length: 12 }, (_, i) => `${n},${3 * k + (i % 4)}`));
  const csv = file('proto.csv', `job,x\n${rows.join('\n')}\n`);

  it('survive --spec-out and give the table scale back from the spec', async () => {
    const out = join(dir, 'proto-spec.json');
    const t = await inProcess('calibrate', '--data', csv, '--query', 'x', '--secret-column', 'job', '--method', 'theorem,coupled', '--spec-out', out, '--json');
    expect(t.status, t.stderr).toBe(0);
    const spec = JSON.parse(readFileSync(out, 'utf8'));
    expect(Object.keys(spec.priors[0].conditionals).sort()).toEqual([...names].sort());
    const s = await inProcess('calibrate', '--spec', out, '--method', 'theorem,coupled', '--json');
    expect(s.status, s.stderr).toBe(0);
    expect(scales(s.stdout)).toEqual(scales(t.stdout));
    // The binding pair involves the far-apart secrets, and no secret vanished on the way.
    expect(JSON.parse(s.stdout).results[0].explanation).toMatch(/over 15 \(prior, pair\)/);
  });

  it('are kept by the spec loader (library), and a pair naming an absent one is refused', () => {
    const raw = `{"priors":[{"name":"p","conditionals":{"__proto__":{"values":[0],"counts":[1]},"constructor":{"values":[9],"counts":[1]}}}]}`;
    const s = parseAnySpecText(raw);
    expect(s.kind).toBe('finite');
    if (s.kind !== 'finite') return;
    expect(Object.keys(s.scenario.priors[0].conditionals)).toEqual(['__proto__', 'constructor']);
    const r = calibrate(s.scenario, { mechanism: 'laplace', method: 'wasserstein-inf', alpha: 2, epsilon: 1 });
    expect(r.scale).toBeCloseTo(9, 9);
    const bad = `{"priors":[{"name":"p","conditionals":{"a":{"values":[0],"counts":[1]},"b":{"values":[9],"counts":[1]}}}],"pairs":[["a","toString"]]}`;
    expect(() => parseAnySpecText(bad)).toThrow(/unknown secret 'toString'/);
  });
});

describe('--given: a public value without some secret keeps the pairs it has', () => {
  // Group 2 has secrets a and b far apart but no c: its a-vs-b pair must still be calibrated.
  const lines = ['g,s,x'];
  for (let i = 0; i < 30; i++) lines.push(`1,a,${i % 3}`, `1,b,${i % 4}`, `1,c,${1 + (i % 3)}`, `2,a,${i % 2}`, `2,b,${8 + (i % 3)}`);
  const csv = file('given.csv', `${lines.join('\n')}\n`);

  it('calibrates a vs b in the group that lacks c, says what is left out, and the spec round-trips', async () => {
    const out = join(dir, 'given-spec.json');
    const r = await inProcess(
      'calibrate',
      '--data',
      csv,
      '--query',
      'x',
      '--secret-column',
      's',
      '--given',
      'g',
      '--method',
      'theorem',
      '--spec-out',
      out,
      '--json',
    );
    expect(r.status, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.results[0].binding).toEqual({ prior: 'empirical | g=2', pair: ['a', 'b'] });
    expect(json.source.absentGiven).toEqual([{ value: '2', absent: ['c'] }]);
    // The group-2 pair alone, as its own table, needs the same scale.
    const alone = file(
      'alone.csv',
      `s,x\n${lines
        .filter((l) => l.startsWith('2,'))
        .map((l) => l.slice(2))
        .join('\n')}\n`,
    );
    const a = await inProcess('calibrate', '--data', alone, '--query', 'x', '--secret-column', 's', '--method', 'theorem', '--json');
    expect(scales(r.stdout)).toEqual(scales(a.stdout));
    const s = await inProcess('calibrate', '--spec', out, '--method', 'theorem', '--json');
    expect(s.status, s.stderr).toBe(0);
    expect(scales(s.stdout)).toEqual(scales(r.stdout));
    const text = await inProcess('calibrate', '--data', csv, '--query', 'x', '--secret-column', 's', '--given', 'g', '--method', 'theorem');
    expect(text.stdout).toMatch(/pairs left out where a secret has no rows: 2 \(no c\)/);
  });

  it('a prior may omit a secret only by naming it absent', () => {
    const base = { name: 'x' };
    const spec = (second: object) =>
      JSON.stringify({
        ...base,
        priors: [{ name: 'p', conditionals: { a: { values: [0], counts: [1] }, b: { values: [1], counts: [1] }, c: { values: [2], counts: [1] } } }, second],
      });
    const two = { a: { values: [0], counts: [1] }, b: { values: [5], counts: [1] } };
    expect(() => parseAnySpecText(spec({ name: 'q', conditionals: two }))).toThrow(/prior 'q' is missing secret 'c'/);
    const ok = parseAnySpecText(spec({ name: 'q', conditionals: two, absent: ['c'] }));
    if (ok.kind !== 'finite') throw new Error('finite expected');
    expect(calibrate(ok.scenario, { mechanism: 'laplace', method: 'wasserstein-inf', alpha: 2, epsilon: 1 }).scale).toBeCloseTo(5, 9);
    expect(() => parseAnySpecText(spec({ name: 'q', conditionals: two, absent: ['d'] }))).toThrow(/absent: names secret 'd'/);
  });

  it('an error message is one line: a newline or tab inside a secret value is shown escaped', async () => {
    const csv = file('nl.csv', 'x,s\n1,a\n2,"b\nc"\n3,"d\te"\n');
    const r = await inProcess('calibrate', '--data', csv, '--query', 'x', '--secret-column', 's', '--values', 'zz');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: --values: secret 'zz' has no rows .*b\\x0ac.*d\\x09e/);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  /** A calibration of a five-day weather sequence as a Markov chain, with this query and length. */
  const chain = (query: string, length: string, ...more: string[]) => {
    const csv = file('days.csv', 'day,w\n1,rain\n2,sun\n3,rain\n4,sun\n5,sun\n');
    return inProcess('calibrate', '--data', csv, '--sequence', 'w', '--order-by', 'day', '--query', query, '--length', length, '--alpha', 'inf', ...more);
  };

  it("a chain too long for its laws' table: the per-pair methods are refused by --length, the chain methods calibrate", async () => {
    const r = await chain('count:rain', '100000', '--method', 'exact');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: --method: 'exact' does not apply: --length: the exact laws need a table of/);
    const g = await chain('count:rain', '100000', '--method', 'group-dp', '--json');
    expect(g.status, g.stderr).toBe(0);
    expect(JSON.parse(g.stdout).results[0].scale).toBe(100_000);
  });

  it("a chain's sum: query names each state once (the last value won)", async () => {
    const r = await chain('sum:rain=1,rain=2', '4');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: --query: state 'rain' is given twice/);
  });

  it('a number in a spec beyond a double (read by JSON as ∞ or 0) is refused by its path', () => {
    const text =
      '{"name": "t", "alpha": 1e400, "epsilon": 1, "priors": [{"name": "p", "conditionals": {"a": {"values": [0, 1e-400], "counts": [1, 1]}, "b": {"values": [0, 1], "counts": [1, 2]}}}]}';
    expect(() => parseAnySpecText(text)).toThrow(/^spec\.alpha: 1e400 is beyond the range of a double \(it would be read as Infinity\)/);
    expect(() => parseAnySpecText(text.replace('1e400', '2'))).toThrow(/^spec\.priors\[0\]\.conditionals\.a\.values\[1\]: 1e-400 is beyond/);
    expect(parseAnySpecText(text.replace('1e400', '2').replace('1e-400', '1e-300')).kind).toBe('finite');
    // Read whole, however long: in range with 400 digits, out of range with 500 zeros.
    expect(parseAnySpecText(text.replace('1e400', `0.${'0'.repeat(397)}2e397`).replace('1e-400', '1')).kind).toBe('finite');
    expect(() => parseAnySpecText(text.replace('1e400', '2').replace('1e-400', `0.${'0'.repeat(500)}1`))).toThrow(
      /conditionals\.a\.values\[1\]: 0\.0+1 is beyond/,
    );
  });
});

describe('settings the MI guarantee does not take, read off their declarations, are refused by every MI mode', () => {
  const values: Record<string, string> = { alpha: '2', delta: '1e-6', contamination: '0.1', domain: '0,7', cost: 'sqrt', fit: 'gaussian' };
  const renyiOnly = Object.entries(SETTINGS).filter(([, d]) => (d as SettingDecl).guarantees?.includes('mi') === false);
  it('declares the Rényi-only settings', () => expect(renyiOnly.map(([k]) => k).sort()).toEqual(Object.keys(values).sort()));
  const modes: [string, string[]][] = [
    ['calibrate --guarantee mi', ['calibrate', '--scenario', 'heart', '--guarantee', 'mi']],
    ['calibrate --projection', ['calibrate', '--spec', 'test/corpus/specs/vector.json', '--guarantee', 'mi', '--projection', 'identity']],
    ['audit --empirical --guarantee mi', ['audit', '--scenario', 'heart', '--guarantee', 'mi', '--empirical', '--scale', '1']],
    ['calibrate mean:', ['calibrate', '--data', 'examples/heart.csv', '--secret-column', 'fbs', '--query', 'mean:oldpeak', '--guarantee', 'mi']],
  ];
  it.each(modes)('%s', async (_label, args) => {
    for (const [name, d] of renyiOnly) {
      const r = await inProcess(...args, d.flag, values[name]);
      expect(r.status, `${d.flag}`).toBe(2);
      // (A command that does not register the flag at all refuses it as an unknown option.)
      expect(r.stderr, d.flag).toMatch(new RegExp(`^error: (${d.flag}: is not taken with|unknown option '${d.flag}')`));
    }
  });
});

describe('options a command or guarantee does not take are refused, never ignored', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'MI with contamination',
      ['calibrate', '--scenario', 'heart', '--guarantee', 'mi', '--contamination', '1', '--domain', '0,7'],
      /^error: --contamination: is not taken with --guarantee mi/,
    ],
    ['MI with α', ['calibrate', '--scenario', 'heart', '--guarantee', 'mi', '--alpha', '2'], /^error: --alpha: is not taken with --guarantee mi/],
    ['MI with δ', ['calibrate', '--scenario', 'heart', '--guarantee', 'mi', '--delta', '1e-6'], /^error: --delta: is not taken with --guarantee mi/],
    [
      '--spec-out with --spec',
      ['calibrate', '--spec', 'test/corpus/specs/vector.json', '--spec-out', join(dir, 'x.json')],
      /^error: --spec-out: is not taken with --spec/,
    ],
    ['--spec-out with --scenario', ['calibrate', '--scenario', 'heart', '--spec-out', join(dir, 'y.json')], /^error: --spec-out: is not taken with --scenario/],
    [
      'account --epsilon without --next',
      ['account', '--scenario', 'heart', '--release', 'mechanism=laplace,scale=1', '--epsilon', '2'],
      /^error: --epsilon: is not taken without --next/,
    ],
    // A table's options with a built-in scenario or a spec: a prior class asked for and not applied
    // would calibrate less noise than meant.
    [
      '--prior with --scenario',
      ['calibrate', '--scenario', 'heart', '--prior', 'bootstrap:50', '--seed', '3'],
      /^error: --prior: is not taken with --scenario/,
    ],
    [
      '--prior with --spec',
      ['audit', '--spec', 'test/corpus/specs/vector.json', '--scale', '1', '--prior', 'dirichlet:5'],
      /^error: --prior: is not taken with --spec/,
    ],
    ['--values with --scenario', ['release', '--scenario', 'heart', '--value', '1', '--values', 'a,b'], /^error: --values: is not taken with --scenario/],
    ['--no-header with --scenario', ['calibrate', '--scenario', 'heart', '--no-header'], /^error: --header: is not taken with --scenario/],
    [
      '--sql with a file',
      ['calibrate', '--data', 'examples/heart.csv', '--query', 'oldpeak', '--secret-column', 'fbs', '--sql', 'SELECT 1'],
      /^error: --sql: is not taken with a file/,
    ],
    [
      '--table with a file',
      ['calibrate', '--data', 'examples/heart.csv', '--query', 'oldpeak', '--secret-column', 'fbs', '--table', 'h'],
      /^error: --table: is not taken with a file/,
    ],
    ['--keep with --value', ['release', '--scenario', 'heart', '--value', '1', '--keep', 'age'], /^error: --keep: is not taken with --value/],
    ['--per-release without --count', ['release', '--scenario', 'heart', '--value', '1', '--per-release'], /^error: --per-release: goes with --count/],
    // A number beyond a double is never read as ∞ or 0.
    ['--alpha 1e400', ['calibrate', '--scenario', 'heart', '--alpha', '1e400'], /^error: --alpha: '1e400' is beyond the range of a double; give "inf"/],
    [
      '--contamination 1e-400',
      ['calibrate', '--scenario', 'heart', '--contamination', '1e-400', '--domain', '0,7'],
      /^error: --contamination: '1e-400' is beyond the range of a double \(it would be read as 0\)/,
    ],
    [
      '--alpha in a grid, 1e-400',
      ['audit', '--scenario', 'heart', '--scale', '1', '--alpha', '2,1e-400'],
      /^error: --alpha: '1e-400' is beyond the range of a double/,
    ],
    ['--scale 1e999', ['audit', '--scenario', 'heart', '--scale', '1e999'], /^error: --scale: /],
    ['--port in hexadecimal', ['serve', '--port', '0x50'], /^error: --port: must be a whole number from 0 to 65535, got '0x50'/],
    ['--figure as 1e0', ['reproduce', '--quick', '--figure', '1e0', '--out', join(dir, 'fig')], /^error: --figure: unknown figure '1e0'/],
    // An option given twice is refused (commander would keep the last silently); --secret and --release collect.
    ['--scale twice', ['audit', '--scenario', 'heart', '--scale', '0.1', '--scale', '5'], /^error: --scale: is given twice/],
    ['--value twice', ['release', '--scenario', 'heart', '--value', '1', '--value', '5'], /^error: --value: is given twice/],
    ['--scenario twice', ['calibrate', '--scenario', 'heart', '--scenario', 'adult'], /^error: --scenario: is given twice/],
    ['--alpha=… twice', ['calibrate', '--scenario', 'heart', '--alpha=2', '--alpha=3'], /^error: --alpha: is given twice/],
    [
      '--header and --no-header',
      ['calibrate', '--data', 'examples/heart.csv', '--query', 'oldpeak', '--secret-column', 'fbs', '--header', '--no-header'],
      /^error: --no-header: is given twice \(as --header and --no-header\)/,
    ],
    // A family option or a test's setting that would change nothing.
    ['--cost with Laplace noise', ['calibrate', '--scenario', 'heart', '--cost', 'sqrt'], /^error: --cost: Laplace noise takes no cost/],
    [
      'cost= in a Gaussian release',
      ['account', '--scenario', 'heart', '--release', 'mechanism=gaussian,scale=1,cost=sqrt'],
      /^error: --release: Gaussian noise takes no cost in 'mechanism=gaussian,scale=1,cost=sqrt'/,
    ],
    [
      '--samples without --empirical',
      ['audit', '--scenario', 'heart', '--scale', '1', '--samples', '500'],
      /^error: --samples: is not taken without --empirical/,
    ],
    [
      'a ledger order twice',
      ['ledger', 'init', '--ledger', join(dir, 'twice.ledger'), '--scenario', 'heart', '--alpha', '2,2', '--epsilon', '1'],
      /^error: --alpha: names an order twice/,
    ],
    [
      '--given the secret column',
      ['calibrate', '--data', 'examples/heart.csv', '--query', 'oldpeak', '--secret-column', 'fbs', '--given', 'fbs'],
      /^error: --given: names the secret column 'fbs'/,
    ],
    [
      'a pair of one secret',
      ['calibrate', '--data', 'examples/heart.csv', '--query', 'oldpeak', '--secret-column', 'fbs', '--pairs', '0:0'],
      /^error: --pairs: pairs secret '0' with itself/,
    ],
    ['an empty file', ['calibrate', '--data', file('empty.csv', ''), '--query', 'a', '--secret-column', 'b'], /^error: --data: '.*empty\.csv' is empty/],
    [
      'Gaussian noise at α = 1e155',
      ['calibrate', '--scenario', 'heart', '--mechanism', 'gaussian', '--alpha', '1e155'],
      /^error: --alpha: Gaussian calibration covers α up to 1e150/,
    ],
    [
      '--seed with nothing to seed',
      ['calibrate', '--data', 'examples/heart.csv', '--query', 'oldpeak', '--secret-column', 'fbs', '--seed', '7'],
      /^error: --seed: seeds the draws of --prior/,
    ],
    [
      'a random projection of 10⁹ rows',
      ['calibrate', '--data', 'examples/heart.csv', '--query', 'age,oldpeak', '--secret-column', 'fbs', '--projection', 'random:1000000000'],
      /^error: --projection: random:1000000000 for 2 column\(s\) is more than 100000 rows/,
    ],
    ['empty --method', ['calibrate', '--scenario', 'heart', '--method', ''], /^error: --method: is empty/],
    ['empty --mechanism', ['audit', '--scenario', 'heart', '--scale', '1', '--mechanism', ' '], /^error: --mechanism: is empty/],
  ];
  it.each(cases)('%s', async (_name, args, message) => {
    const r = await inProcess(...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });
});

describe('outputs: never a secret column, never over a special file or another output', () => {
  const csv = file('people.csv', 'age,x,sex\n30,1,M\n60,2,F\n55,3,M\n20,1,F\n70,2,M\n');
  const release = (...extra: string[]) => cli('release', '--data', csv, '--query', 'x', '--allow-no-noise', ...extra);
  const releaseIn = (...extra: string[]) => inProcess('release', '--data', csv, '--query', 'x', '--allow-no-noise', ...extra);

  it('--keep refuses a column a secret predicate reads (any case, quoted or not), and * or COLUMNS()', async () => {
    const out = join(dir, 'o.csv');
    for (const [pred, keep] of [
      ['age >= 50', 'age'],
      ['AGE >= 50', 'age'],
      ['"Age" >= 50', 'age'],
      ['age >= 50', 'AGE'],
    ]) {
      const r = await releaseIn('--secret', `older=${pred}`, '--secret', 'younger=age < 50', '--keep', keep, '--out', out);
      expect(r.status, `${pred} / ${keep}`).toBe(2);
      expect(r.stderr).toMatch(/^error: --keep: '.*' is read by the predicate of secret 'older'/);
    }
    const star = await releaseIn('--secret', "older=COLUMNS('ag.*') >= 50", '--secret', 'younger=age < 50', '--keep', 'sex', '--out', out);
    expect(star.stderr).toMatch(/may read any column/);
    // Columns reached without their name: by position, through the row as a struct (by a name in a
    // string, or one built from strings), or by reading the file again in a subquery.
    for (const pred of [
      "#3 = 'M'",
      "struct_extract(read_csv, 'sex') = 'M'",
      "read_csv['s' || 'ex'] = 'M'",
      'age >= (SELECT 50)',
      `age >= 50 AND EXISTS (TABLE "${csv}")`,
    ]) {
      const r = await releaseIn('--secret', `m=${pred}`, '--secret', 'f=age < 50', '--keep', 'sex', '--out', out);
      expect(r.status, pred).toBe(2);
      expect(r.stderr, pred).toMatch(/^error: --keep: the predicate of secret 'm' may read any column/);
    }
    // Names as DuckDB reads them: a doubled quote inside a quoted name, non-ASCII characters unquoted.
    const odd = file('odd.csv', 'x,"s""x",temp°,age\n1,M,1,30\n2,F,2,60\n3,M,3,55\n4,F,4,20\n');
    for (const [pred, keep] of [
      ['"s""x" = \'M\'', 's"x'],
      ['temp° >= 2', 'temp°'],
    ]) {
      const r = await inProcess(
        'release',
        '--data',
        odd,
        '--query',
        'x',
        '--allow-no-noise',
        '--secret',
        `m=${pred}`,
        '--secret',
        `f=NOT (${pred})`,
        '--keep',
        keep,
        '--out',
        out,
      );
      expect(r.status, pred).toBe(2);
      expect(r.stderr, pred).toMatch(/^error: --keep: '.*' is read by the predicate of secret 'm'/);
    }
    const named = await releaseIn('--secret', "m=age >= 50 AND 'SEX' <> ''", '--secret', 'f=age < 50', '--keep', 'sex', '--out', out);
    expect(named.stderr).toMatch(/^error: --keep: 'sex' is read by the predicate of secret 'm'/);
    const ok = await releaseIn('--secret', 'older=age >= 50', '--secret', 'younger=age < 50', '--keep', 'sex', '--out', out);
    expect(ok.status, ok.stderr).toBe(0);
    expect(readFileSync(out, 'utf8').split('\n')[0]).toBe('x,sex');
  });

  it('a FIFO or device as --out/--spec-out, the same file twice, and a FIFO as --spec are refused', async () => {
    const fifo = join(dir, 'fifo.csv');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(release('--secret-column', 'sex', '--out', fifo).stderr).toMatch(/^error: --out: '.*fifo\.csv' is not a regular file/);
    expect((await inProcess('calibrate', '--data', csv, '--query', 'x', '--secret-column', 'sex', '--spec-out', '/dev/null')).stderr).toMatch(
      /^error: --spec-out: '\/dev\/null' is not a regular file/,
    );
    const same = join(dir, 'same.csv');
    const twice = release('--secret-column', 'sex', '--out', same, '--spec-out', same);
    expect(twice.status).toBe(2);
    expect(twice.stderr).toMatch(/^error: --spec-out: '.*same\.csv' is also the output of --out/);
    const spec = await inProcess('calibrate', '--spec', fifo);
    expect(spec.status).toBe(2);
    expect(spec.stderr).toMatch(/^error: --spec: '.*fifo\.csv' is a FIFO or socket/);
  });

  it('a quoted --keep name is an unknown column, not an internal error', () => {
    const r = release('--secret-column', 'sex', '--keep', '"age"', '--out', join(dir, 'q.csv'));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: --keep: unknown column '"age"'/);
  });

  it('a full disk is an I/O error naming the output (exit 2), and nothing is left behind', async () => {
    const { writeAtomically } = await import('../src/io/atomicWrite.js');
    const target = join(dir, 'full.json');
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    await expect(
      writeAtomically(target, '--spec-out', (tmp) => {
        writeFileSync(tmp, 'partial');
        throw full;
      }),
    ).rejects.toThrow(/^--spec-out: cannot write '.*full\.json' \(ENOSPC\); nothing was written/);
    const duck = new Error('IO Error: Could not write file "x": No space left on device');
    await expect(writeAtomically(target, '--out', () => Promise.reject(duck))).rejects.toThrow(/\(No space left on device\)/);
    expect(spawnSync('ls', ['-a', dir], { encoding: 'utf8' }).stdout).not.toMatch(/full\.json/);
  });
});

describe('orders and scales at the edge of the doubles', () => {
  it('α = 10¹² and 10³⁰⁸ audit through D_α ≤ D∞ (no V8 crash, no ∞ row); calibrate and account refuse finite α past 1e150 by name', async () => {
    for (const alpha of ['1e12', '1e308']) {
      const r = await inProcess('audit', '--scenario', 'heart', '--alpha', alpha, '--scale', '1', '--json');
      expect(r.status, r.stderr).toBe(0);
      const rows = JSON.parse(r.stdout).rows as { divergence: number; error: number; certificate: string; pufferfishEpsilon: number }[];
      for (const row of rows) {
        expect(row.certificate).toBe('order-monotone');
        // The α = ∞ bound itself (the ε-PP level is it rounded up by an ulp).
        expect(row.divergence + row.error).toBeLessThanOrEqual(row.pufferfishEpsilon);
        expect(row.divergence + row.error).toBeGreaterThanOrEqual(row.pufferfishEpsilon * (1 - 1e-15));
      }
      expect(JSON.parse(r.stdout).verdict).toBe('pass');
    }
    for (const args of [
      ['calibrate', '--scenario', 'heart', '--alpha', '1e308'],
      ['calibrate', '--scenario', 'heart', '--alpha', '1e200', '--mechanism', 'exponential'],
      ['account', '--scenario', 'heart', '--release', 'mechanism=laplace,scale=1', '--alpha', '1e308'],
    ]) {
      const r = await inProcess(...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^error: --alpha: \S+ calibration covers finite α up to 1e150 .*α = inf covers every order/);
    }
    // Up to 1e150 the orders calibrate, and the audit passes the scale found.
    const big = await inProcess('calibrate', '--scenario', 'heart', '--alpha', '1e150', '--method', 'exact', '--json');
    expect(big.status, big.stderr).toBe(0);
    const b = scales(big.stdout)[0];
    expect(Number.isFinite(b) && b > 0).toBe(true);
    const audited = await inProcess('audit', '--scenario', 'heart', '--alpha', '1e150', '--scale', String(b), '--json');
    expect(JSON.parse(audited.stdout).verdict).toBe('pass');
  });

  it('Gaussian σ whose square underflows: the account says ∞ (never NaN), a ledger refuses it with the scale that fits', async () => {
    for (const sigma of ['1e-160', '1e-200', '5e-324']) {
      const r = await inProcess(
        'account',
        '--scenario',
        'heart',
        '--release',
        `mechanism=gaussian,scale=${sigma}`,
        '--release',
        'mechanism=gaussian,scale=1',
        '--alpha',
        '2',
      );
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).not.toMatch(/NaN/);
      expect(r.stdout).toMatch(/\n2 +∞ /);
    }
    const L = join(mkdtempSync(join(tmpdir(), 'pf-edge-')), 'l.ledger');
    expect((await inProcess('ledger', 'init', '--ledger', L, '--scenario', 'heart', '--alpha', '2', '--epsilon', '1')).status).toBe(0);
    const r = await inProcess('release', '--scenario', 'heart', '--value', '1.4', '--mechanism', 'gaussian', '--ledger', L, '--scale', '5e-324');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: --ledger: refused: .* would bring the joint level to ∞ .* the smallest scale that still fits is [\d.e+-]+/);
  });
});

describe('work that cannot finish is refused early', () => {
  it('coordinate weights whose weighted spread overflows: exit 2 naming --coordinate-scales', async () => {
    for (const cmd of [['calibrate'], ['audit', '--scale', '1']]) {
      const r = await inProcess(...cmd, '--spec', 'test/corpus/specs/vector.json', '--coordinate-scales', '1e-308,1');
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^error: --coordinate-scales: coordinate 1's spread 3 over its weight 1e-308 exceeds/);
    }
  });

  it('thousands of secret values: the number of (prior, pair) units, before any work', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => `v${i},${i % 7}`);
    const r = await inProcess('calibrate', '--data', file('many.csv', `s,x\n${rows.join('\n')}\n`), '--query', 'x', '--secret-column', 's');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: --pairs: 3000 secrets and 1 prior\(s\) make 4498500 \(prior, pair\) units/);
  });
});

describe('smaller: what the numbers and messages say', () => {
  const json = (...args: string[]) => {
    const r = cli(...args, '--json');
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  };

  it('an (ε, δ) target takes α = ∞: ε-Pufferfish implies (ε, δ), and it wins when smaller', async () => {
    const inf = json('calibrate', '--scenario', 'heart', '--alpha', 'inf', '--epsilon', '1', '--delta', '1e-6');
    const pure = json('calibrate', '--scenario', 'heart', '--alpha', 'inf', '--epsilon', '1');
    expect(inf.results[0].scale).toBe(pure.results[0].scale);
    const grid = json('calibrate', '--scenario', 'heart', '--epsilon', '1', '--delta', '1e-6');
    expect(grid.results[0].scale).toBeLessThanOrEqual(pure.results[0].scale);
    const g = await inProcess('calibrate', '--scenario', 'heart', '--mechanism', 'gaussian', '--alpha', 'inf', '--delta', '1e-6');
    expect(g.stderr).toMatch(/^error: --epsilon: no Rényi order \(α = ∞\) gives/);
  });

  it('account --next: a budget no release can fit is exit 2 with the reason, at α = 2 and ∞', async () => {
    for (const alpha of ['2', 'inf']) {
      const r = await inProcess(
        'account',
        '--scenario',
        'heart',
        '--release',
        'mechanism=laplace,scale=0.5',
        '--next',
        'laplace',
        '--alpha',
        alpha,
        // Below the past release's own exact level (0.0539 at α = 2): no further release can fit.
        '--epsilon',
        '0.05',
      );
      expect(r.status, `${alpha}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/^error: --epsilon: .*no further release fits/);
    }
  });

  it('counts and numbers are decimal: 1e3, 0x10 refused; counts ≥ 2^53 are too large to be exact', async () => {
    const bad: [string[], RegExp][] = [
      [['release', '--scenario', 'heart', '--value', '1', '--count', '1e3'], /^error: --count: must be a whole number/],
      [['release', '--scenario', 'heart', '--value', '0x10'], /^error: --value: must be a finite number/],
      [['calibrate', '--scenario', 'heart', '--alpha', '0x10'], /^error: --alpha: '0x10' is not a number or "inf"/],
      [['audit', '--scenario', 'heart', '--scale', '0x1'], /^error: --scale: '0x1' is not a decimal number/],
      [['calibrate', '--scenario', 'heart', '--threads', '0x2'], /^error: --threads: must be a whole number/],
      [['audit', '--scenario', 'heart', '--scale', '1', '--empirical', '--releases', '2'], /^error: --empirical: samples one release/],
    ];
    for (const [args, message] of bad) {
      const r = await inProcess(...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    const big = file(
      'big.json',
      `{"alpha":2,"epsilon":1,"priors":[{"name":"p","conditionals":{"a":{"values":[0],"counts":[9007199254740992]},"b":{"values":[1],"counts":[1]}}}]}`,
    );
    expect((await inProcess('calibrate', '--spec', big)).stderr).toMatch(/counts\[0\]: count 9007199254740992 is too large to be exact/);
  });

  it('a newline in a secret value is shown escaped in the table; an overflowing variance is "inf" in JSON', async () => {
    const csv = file('nl.csv', 's,x\n"a\nb",1\n"a\nb",2\nc,5\nc,6\n');
    const r = await inProcess('calibrate', '--data', csv, '--query', 'x', '--secret-column', 's', '--method', 'theorem');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/empirical: a\\nb vs c/);
    const huge = file(
      'huge.json',
      '{"alpha":2,"epsilon":1,"priors":[{"name":"p","conditionals":{"a":{"values":[-1e300],"counts":[1]},"b":{"values":[1e300],"counts":[1]}}}]}',
    );
    const h = json('calibrate', '--spec', huge, '--method', 'wasserstein-inf');
    expect(h.results[0].variance).toBe('inf');
  });

  it('a newline or tab in a secret or column name is shown escaped in titles and sentences too; the layout keeps its own lines', () => {
    const csv = file('nl2.csv', 'x,"g\th"\n1,"a\nb"\n2,"a\nb"\n5,c\n6,c\n');
    const text = cli('calibrate', '--data', csv, '--query', 'x', '--secret-column', 'g\th', '--method', 'theorem');
    expect(text.status, text.stderr).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toBe('nl2.csv: x by g\\th');
    expect(lines.find((l) => l.startsWith('theorem (α=2'))).toMatch(/pair a\\nb vs c\.$/);
    expect(text.stdout).not.toMatch(/a\nb|g\th/);
    // JSON keeps the names as they are (its own escapes).
    const j = JSON.parse(cli('calibrate', '--data', csv, '--query', 'x', '--secret-column', 'g\th', '--method', 'theorem', '--json').stdout);
    expect(j.results[0].binding.pair).toEqual(['a\nb', 'c']);
  });
});

describe('a chain whose two secrets have the same law up to rounding', () => {
  it('every method calibrates (W∞ = 0 needs no noise for that pair) and best equals exact', () => {
    // X[2] = x and X[2] = z give one law in exact arithmetic; the floating-point laws differ by a few ulps.
    const spec = JSON.stringify({
      markov: {
        states: ['x', 'y', 'z'],
        chains: [
          {
            name: 'c0',
            transition: [
              [0.01, 0.98, 0.01],
              [0.01, 0.01, 0.98],
              [0.98, 0.01, 0.01],
            ],
            initial: 'stationary',
          },
        ],
        length: 3,
        query: { count: 'y' },
      },
      alpha: 'inf',
      epsilon: 1,
    });
    const s = parseAnySpecText(spec);
    const at = (method: string) =>
      calibrate((s as unknown as { scenario: never }).scenario, { mechanism: 'laplace', method: method as never, alpha: Infinity, epsilon: 1 });
    for (const m of ['wasserstein-inf', 'pierquin', 'theorem', 'coupled']) {
      const r = at(m);
      expect(r.scale, m).toBeGreaterThan(0);
      expect(r.pairs?.some((p) => p.zeroReason?.startsWith('W∞ = 0'))).toBe(true);
    }
    expect(at('best').scale).toBe(at('exact').scale);
  });
});

describe('tiny scales: exact accounting certifies or steps aside, and calibrate, audit and account agree', () => {
  const json = (...args: string[]) => JSON.parse(cli(...args, '--json').stdout);

  it('ε = 1e16: every method answers ≈ 2.2e-16 (exact never far below the bound it cannot certify), and the audit passes it', async () => {
    // (Gaussian noise at ε = 1e16 is the same defect, but its quadrature runs to the panel cap: ~20 s.)
    for (const [scenario, epsilon, floor] of [
      ['heart', '1e16', 2.2e-16],
      ['student-mat', '1e15', 5e-15],
    ] as const) {
      const r = json('calibrate', '--scenario', scenario, '--epsilon', epsilon).results[0];
      // exact may go below the floor only through its α = ∞ answer (D_α ≤ D∞), certified at the atoms.
      const atInf = json('calibrate', '--scenario', scenario, '--epsilon', epsilon, '--alpha', 'inf', '--method', 'exact').results[0].scale;
      for (const c of r.candidates)
        expect(c.scale, `${scenario} ${c.method}`).toBeGreaterThanOrEqual(Math.min(floor, c.method === 'exact' ? atInf : floor) * (1 - 1e-9));
      const a = await inProcess('audit', '--scenario', scenario, '--epsilon', epsilon, '--scale', String(r.scale));
      expect(a.status, a.stdout).toBe(0);
    }
  });

  it('account at b = 1e-20: a finite certified level (never −∞) and a naive sum that includes it', () => {
    const a = json('account', '--scenario', 'heart', '--release', 'mechanism=laplace,scale=1e-20', '--alpha', '2');
    const row = a.rows[0];
    expect(typeof row.divergence === 'number' || row.divergence === 'inf').toBe(true);
    expect(row.divergence === 'inf' || row.divergence > 1e19).toBe(true);
    expect(row.naiveSum === 'inf' || row.naiveSum >= 1e19).toBe(true);
    // Below the doubles' reach (a subnormal b: 1/b overflows): ∞, never NaN, and a shared support's
    // data divergence bounds it (data processing).
    const tiny = json('account', '--scenario', 'heart', '--release', 'mechanism=laplace,scale=1e-320', '--alpha', '2').rows[0];
    expect([tiny.divergence, tiny.naiveSum]).toEqual(['inf', 'inf']);
    const shared = json('account', '--scenario', 'adult', '--release', 'mechanism=laplace,scale=1e-320', '--alpha', '2').rows[0];
    expect(Number.isFinite(shared.divergence)).toBe(true);
  });

  it('an exact evaluation with one uncertified direction certifies nothing', async () => {
    const { exactEvaluation } = await import('../src/conditions/exact.js');
    const { noiseOf } = await import('../src/mechanisms/kernels.js');
    const { builtinScenario } = await import('../src/scenarios/builtin.js');
    const [p, q] = Object.values(builtinScenario('heart').priors[0].conditionals);
    // b = 3e-15: the quadrature underflows (value −∞, error ∞); that must never read as D ≤ ε.
    for (const b of [3e-14, 3e-15, 1e-16]) {
      const e = exactEvaluation(p, q, noiseOf('laplace', b), 2, 1e16, false);
      expect(e.value + e.error, `b = ${b}`).toBe(Infinity);
    }
  });
});
