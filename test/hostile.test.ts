import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess as inProcess } from './inProcess.js';

// The reliability catalogue: hostile inputs that once crashed (exit 1), hung, or answered a
// wrong number. Each must now be exit 2 with one line naming the field, or the right answer (the
// command lines run in-process: what is tested is the commands' handling, not the process).
const dir = mkdtempSync(join(tmpdir(), 'pufferfish-hostile-'));
const spec = (name: string, body: object | string) => {
  const f = join(dir, name);
  writeFileSync(f, typeof body === 'string' ? body : JSON.stringify(body));
  return f;
};
const pair = (extra: object = {}) => ({
  name: 'x',
  alpha: 2,
  epsilon: 1,
  ...extra,
  priors: [{ name: 'p', conditionals: { a: { values: [0, 1], counts: [1, 1] }, b: { values: [0, 2], counts: [1, 1] } } }],
});

describe('hostile inputs: exit 2 with one line', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'duplicate conditional key',
      [
        'calibrate',
        '--spec',
        spec(
          'dup.json',
          '{"name":"x","alpha":2,"epsilon":1,"priors":[{"name":"p","conditionals":{"a":{"values":[0,1],"counts":[1,1]},"a":{"values":[0,9],"counts":[1,1]},"b":{"values":[0,2],"counts":[1,1]}}}]}',
        ),
      ],
      /^error: spec\.priors\[0\]\.conditionals\.a: is given twice/,
    ],
    [
      'η power 1e300',
      ['calibrate', '--spec', spec('eta.json', pair({ eta: { power: 1e300 } })), '--mechanism', 'exponential'],
      /^error: spec\.eta\.power: .*power ≤ 64/,
    ],
    ['a spec without end (/dev/zero)', ['calibrate', '--spec', '/dev/zero'], /^error: --spec: is larger than 256 MiB/],
    [
      'empirical audit of 10¹² samples',
      ['audit', '--scenario', 'heart', '--scale', '1', '--empirical', '--samples', '1e12'],
      /^error: --samples: must be a whole number from 100 to 10000000/,
    ],
    ['reproduce into a missing folder', ['reproduce', '--quick', '--out', join(dir, 'no', 'such', 'dir')], /^error: --out: folder '.*no\/such' does not exist/],
    [
      '10⁴ bootstrap draws per public value',
      [
        'calibrate',
        '--data',
        spec('ages.csv', 'age,x,s\n' + Array.from({ length: 400 }, (_, i) => `${20 + (i % 50)},${i % 7},${i % 2 ? 'a' : 'b'}`).join('\n') + '\n'),
        '--query',
        'x',
        '--secret-column',
        's',
        '--given',
        'age',
        '--prior',
        'bootstrap:10000',
      ],
      /^error: --prior: would build 500050 priors \(50 public value\(s\) × 10001\)/,
    ],
    [
      'a truncated release needing ~10⁸ draws',
      ['release', '--scenario', 'heart', '--value', '1.51', '--truncate=-1,1'],
      /^error: --truncate: value 1\.51 lands in \[-1, 1\] with probability .* draws per release on average \(limit 100000\)/,
    ],
    ['reproduce under /proc', ['reproduce', '--quick', '--out', '/proc/nope/x'], /^error: --out: folder '\/proc\/nope' does not exist/],
  ];
  it.each(cases)('%s', async (_n, args, msg) => {
    const r = await inProcess(...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(msg);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('hostile inputs that must give the right number', () => {
  it('secret probabilities of 1e308 normalise like 0.5/0.5 (no overflow to probability 0)', async () => {
    const withP = (p: number) => ({
      name: 'x',
      epsilon: 0.05,
      priors: [{ name: 'p', conditionals: { a: { values: [0, 1], counts: [1, 1], probability: p }, b: { values: [0, 3], counts: [1, 1], probability: p } } }],
    });
    const run = async (f: string) =>
      JSON.parse((await inProcess('calibrate', '--spec', f, '--guarantee', 'mi', '--method', 'mi-exact', '--json')).stdout).results[0].scale;
    const huge = await run(spec('p-huge.json', withP(1e308))),
      half = await run(spec('p-half.json', withP(0.5)));
    expect(half).toBeGreaterThan(0);
    expect(huge).toBe(half);
  });

  it('1.5·10⁵ weights per conditional calibrate (no stack overflow from spreading arrays)', async () => {
    const n = 150_000;
    const values = Array.from({ length: n }, (_, i) => i / 1000);
    const big = {
      name: 'big',
      alpha: 2,
      epsilon: 1,
      priors: [
        { name: 'p', conditionals: { a: { values, counts: values.map(() => 1) }, b: { values: values.map((v) => v + 0.5), counts: values.map(() => 1) } } },
      ],
    };
    const r = await inProcess('calibrate', '--spec', spec('big.json', big), '--method', 'theorem,wasserstein-inf', '--json');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const [theorem, song] = JSON.parse(r.stdout).results.map((x: { scale: number }) => x.scale);
    expect(song).toBeGreaterThanOrEqual(0.5); // W∞ = 0.5 at ε = 1
    expect(theorem).toBeGreaterThan(0);
    // The default `best` runs Laplace's exact accounting here (the one-pass gap rule takes seconds),
    // but not the Gaussian one, which would run for minutes; it says so.
    const best = await inProcess('calibrate', '--spec', join(dir, 'big.json'), '--json');
    expect(best.status).toBe(0);
    const laplaceBest = JSON.parse(best.stdout).results[0];
    expect(laplaceBest.candidates.map((c: { method: string }) => c.method)).toContain('exact');
    expect(laplaceBest.scale).toBeLessThanOrEqual(song);
    const gauss = await inProcess('calibrate', '--spec', join(dir, 'big.json'), '--mechanism', 'gaussian', '--json');
    expect(gauss.status).toBe(0);
    expect(JSON.parse(gauss.stdout).results[0].explanation).toMatch(/exact accounting left out: a pair has 300000 atoms, above 200000/);
  }, 120_000);

  it('an explicit exact accounting that would run for many minutes is refused with the estimate', async () => {
    const n = 350_000;
    const values = Array.from({ length: n }, (_, i) => i / 1000);
    const huge = {
      name: 'huge',
      alpha: 2,
      epsilon: 1,
      priors: [
        { name: 'p', conditionals: { a: { values, counts: values.map(() => 1) }, b: { values: values.map((v) => v + 0.5), counts: values.map(() => 1) } } },
      ],
    };
    const r = await inProcess('calibrate', '--spec', spec('huge.json', huge), '--method', 'exact', '--mechanism', 'gaussian');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: --method: exact accounting on a pair with 700000 atoms would take about 105 s or more/);
  }, 120_000);

  it('control characters in data reach the terminal escaped, never raw (ANSI sequences)', async () => {
    const f = join(dir, 'ansi.csv');
    writeFileSync(f, 'x,s\n1,\u001b[31mred\u001b[0m\n2,b\n3,b\n');
    const r = await inProcess('calibrate', '--data', f, '--query', 'x', '--secret-column', 's', '--method', 'theorem');
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout).toContain('\\x1b[31mred');
    const bad = await inProcess('calibrate', '--data', f, '--query', 'x', '--secret-column', 's', '--values', '\u001b[2Jzz,b');
    expect(bad.status).toBe(2);
    expect(bad.stderr).not.toContain('\u001b');
  });

  it('explanations are shown for every result, grouped over a grid', async () => {
    const r = await inProcess('calibrate', '--scenario', 'heart', '--alpha', '1.5:3:0.5', '--epsilon', '0.5,1', '--method', 'theorem,exact');
    expect(r.stdout).toMatch(/\ntheorem \(8 settings: .*\): Theorem 1/);
    expect(r.stdout).toMatch(/\nexact \(8 settings: .*\): exact Rényi accountant/);
  });

  it('an MI budget of 710 nats answers 0 (data processing) instead of failing', async () => {
    const r = await inProcess('calibrate', '--scenario', 'heart', '--guarantee', 'mi', '--epsilon', '710', '--json');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).results[0].scale).toBe(0);
  });

  it("ranges keep the user's numbers exactly (no rounding to 12 digits)", async () => {
    const r = await inProcess('calibrate', '--scenario', 'heart', '--method', 'theorem', '--epsilon', '0.1234567890126:0.2:0.05', '--json');
    expect(JSON.parse(r.stdout).results.map((x: { epsilon: number }) => x.epsilon)).toEqual([0.1234567890126, 0.1734567890126]);
  });
});
