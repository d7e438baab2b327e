import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { calibrate } from '../src/calibrate/calibrate.js';
import { builtinScenario } from '../src/scenarios/builtin.js';
import { decimalUp } from '../src/numerics/decimal.js';

// The CLI as users run it: the built `bin` (npm test builds first).
const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const run = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
const dir = mkdtempSync(join(tmpdir(), 'pufferfish-cli-'));
const example = JSON.parse(readFileSync(new URL('./fixtures/issue-example.json', import.meta.url), 'utf8'));
const specFile = (mutate: (s: any) => void) => {
  const s = structuredClone(example);
  mutate(s);
  const f = join(dir, `spec-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(f, JSON.stringify(s));
  return f;
};

describe('pufferfish calibrate', () => {
  it('runs the issue’s grid command and matches the library', () => {
    const r = run('calibrate', '--scenario', 'heart', '--alpha', '1.5:5:0.5', '--epsilon', '0.5,1', '--method', 'theorem,pierquin', '--json');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.results).toHaveLength(2 * 8 * 2);
    for (const x of out.results) {
      expect(Object.keys(x)).toEqual(expect.arrayContaining(['mechanism', 'method', 'alpha', 'epsilon', 'scale', 'variance', 'binding']));
      const lib = calibrate(builtinScenario('heart'), { mechanism: 'laplace', method: x.method, alpha: x.alpha, epsilon: x.epsilon });
      expect(x.scale).toBe(lib.scale);
      expect(x.variance).toBe(2 * x.scale ** 2);
      expect(x.binding).toEqual({ prior: 'empirical', pair: ['0', '1'] });
    }
    expect(out.results.map((x: { alpha: number }) => x.alpha).slice(0, 16)).toEqual([1.5, 1.5, 2, 2, 2.5, 2.5, 3, 3, 3.5, 3.5, 4, 4, 4.5, 4.5, 5, 5]);
  });

  it('prints a readable table by default, with the binding pair', () => {
    const r = run('calibrate', '--scenario', 'adult', '--method', 'theorem');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/method\s+rule\s+α\s+ε\s+param\s+scale\s+± \(0\.95\)\s+variance\s+binding/);
    expect(r.stdout).toMatch(/Theorem 1 \(eq\. 7\).*empirical: Husband vs Not-in-family/);
  });

  it('defaults to best and names the winner', () => {
    const r = run('calibrate', '--scenario', 'heart', '--json');
    const [x] = JSON.parse(r.stdout).results;
    expect(x.method).toBe('best');
    expect(x.winner).toBe('exact');
    expect(x.scale).toBe(Math.min(...x.candidates.map((c: { scale: number }) => c.scale)));
    expect(run('calibrate', '--scenario', 'heart').stdout).toMatch(/best→exact/);
  });

  it('writes α = ∞ as "inf" in JSON and flags override the spec', () => {
    const r = run(
      'calibrate',
      '--spec',
      specFile(() => {}),
      '--alpha',
      'inf',
      '--mechanism',
      'exponential',
      '--cost',
      'sqrt',
      '--json',
    );
    expect(r.status).toBe(0);
    const [x] = JSON.parse(r.stdout).results;
    expect(x).toMatchObject({ alpha: 'inf', mechanism: 'exponential', parameter: 'theta', cost: 'sqrt' });
  });

  it('explains a zero-noise answer', () => {
    const f = specFile((s) => (s.priors[0].conditionals['Not-in-family'] = { values: [3, 2, 1], counts: [149, 70, 14] }));
    const r = run('calibrate', '--spec', f, '--json');
    const [x] = JSON.parse(r.stdout).results;
    expect(x.scale).toBe(0);
    expect(x.binding).toBeNull();
    expect(x.explanation).toMatch(/No noise needed.*identical/);
  });

  const bad: [string, string[], RegExp][] = [
    ['unreadable spec', ['--spec', join(dir, 'missing.json')], /^error: --spec: cannot read spec file/],
    [
      'invalid JSON',
      [
        '--spec',
        (() => {
          const f = join(dir, 'bad.json');
          writeFileSync(f, '{');
          return f;
        })(),
      ],
      /^error: --spec: .* is not valid JSON/,
    ],
    ['α ≤ 0', ['--scenario', 'adult', '--alpha', '-1'], /^error: --alpha: must be a number > 0/],
    ['α = 1', ['--scenario', 'adult', '--alpha', '1'], /^error: --alpha: α = 1/],
    ['Gaussian at α = ∞', ['--scenario', 'adult', '--mechanism', 'gaussian', '--alpha', 'inf'], /^error: --alpha: Gaussian noise cannot give α = ∞/],
    [
      'Gaussian at α < 1',
      ['--scenario', 'adult', '--mechanism', 'gaussian', '--alpha', '0.5'],
      /^error: --alpha: Gaussian calibration \(Theorem 2\) needs α > 1/,
    ],
    ['ε ≤ 0', ['--scenario', 'adult', '--epsilon', '0'], /^error: --epsilon: must be a finite number > 0/],
    ['ε not a number', ['--scenario', 'adult', '--epsilon', 'abc'], /^error: --epsilon: 'abc' is not a number/],
    [
      'negative weight',
      ['--spec', specFile((s) => (s.priors[0].conditionals['Not-in-family'].weights[0] = -1))],
      /^error: spec\.priors\[0\]\.conditionals\["Not-in-family"\]\.weights\[0\]: weight -1 is negative/,
    ],
    ['all-zero weights', ['--spec', specFile((s) => (s.priors[0].conditionals['Not-in-family'].weights = [0, 0, 0]))], /weights: weights sum to zero/],
    ['length mismatch', ['--spec', specFile((s) => (s.priors[0].conditionals.Husband.values = [1, 2]))], /Husband\.counts: has 3 entries but values has 2/],
    ['unknown secret in pair', ['--spec', specFile((s) => (s.pairs = [['Husband', 'Wife']]))], /^error: spec\.pairs\[0\]\[1\]: unknown secret 'Wife'/],
    [
      'prior missing a secret',
      ['--spec', specFile((s) => s.priors.push({ name: 'b', conditionals: { Husband: { values: [1], counts: [1] } } }))],
      /prior 'b' is missing secret 'Not-in-family'/,
    ],
    ['fewer than two secrets', ['--spec', specFile((s) => delete s.priors[0].conditionals.Husband)], /at least two are needed/],
    ['unknown option', ['--scenario', 'adult', '--bogus'], /^error: unknown option '--bogus'/],
    ['unknown method', ['--scenario', 'adult', '--method', 'magic'], /^error: --method: unknown value 'magic'/],
    [
      'inapplicable method',
      ['--scenario', 'adult', '--mechanism', 'gaussian', '--method', 'wasserstein-inf'],
      /^error: --method: wasserstein-inf does not apply to gaussian/,
    ],
  ];
  it.each(bad)('bad input (%s): exit 2, one line, no stack trace', (_n, args, pattern) => {
    const r = run('calibrate', ...args);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(pattern);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\bat .*\.js:\d+/);
  });

  it('NaN/∞ values cannot come from JSON but 1e999 parses to ∞ and is refused', () => {
    const f = join(dir, 'inf.json');
    writeFileSync(f, JSON.stringify(example).replace('"values":[1,2,3],"counts"', '"values":[1,2,1e999],"counts"'));
    const r = run('calibrate', '--spec', f);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/Husband\.values\[2\]/);
  });

  it('has help for everything', () => {
    const top = run('--help');
    expect(top.status).toBe(0);
    expect(top.stdout).toMatch(/calibrate/);
    const sub = run('calibrate', '--help');
    expect(sub.status).toBe(0);
    for (const flag of ['--spec', '--scenario', '--mechanism', '--method', '--alpha', '--epsilon', '--cost', '--json']) expect(sub.stdout).toContain(flag);
    expect(sub.stdout).toMatch(/Theorem 1/);
  });
});

describe('pufferfish serve', () => {
  it('prints its 127.0.0.1 URL and serves the app there', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0']);
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (b: Buffer) => {
          const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(b.toString());
          if (m) resolve(m[0]);
        });
        child.on('exit', () => reject(new Error('serve exited')));
      });
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toMatch(/connect-src 'self'/);
      expect(await res.text()).toMatch(/<title>Pufferfish/);
      expect((await fetch(`${url}../package.json`)).status).toBe(404);
    } finally {
      child.kill();
    }
  });
});

describe('answers people can read (text; JSON keeps every digit)', () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
  it('a release prints its values to a tenth of the error bar, the intervals rounded outward around the exact ones', () => {
    const t = cli('release', '--scenario', 'heart', '--value', '1.4', '--count', '3');
    const j = JSON.parse(cli('release', '--scenario', 'heart', '--value', '1.4', '--count', '3', '--json').stdout);
    const h = j.halfWidth as number;
    expect(t.stdout).toMatch(new RegExp(`error bars ±${Number(decimalUp(h, 4))} \\(`));
    const lines = t.stdout.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^\(values to a tenth of their error bar/);
    for (const l of lines.slice(-4, -1)) {
      const [v, bar] = l.split('\t');
      const decimals = v.split('.')[1]?.length ?? 0;
      expect(decimals).toBe(Math.max(0, 1 - Math.floor(Math.log10(h))));
      const [lo, hi] = bar.slice(1, -1).split(', ').map(Number);
      // The exact interval is value ± h: the printed one holds it.
      expect(lo).toBeLessThanOrEqual(Number(v) - h + 10 ** -decimals);
      expect(hi).toBeGreaterThanOrEqual(Number(v) + h - 10 ** -decimals);
    }
    // JSON: full precision.
    expect(String(j.releases[0].value).replace('-', '').length).toBeGreaterThan(8);
  });

  it('an (ε, δ) target shows ε and δ as asked and the Rényi budget under D_α ≤, never under ε', () => {
    const t = cli('calibrate', '--scenario', 'heart', '--epsilon', '1', '--delta', '1e-6', '--mechanism', 'gaussian');
    expect(t.status).toBe(0);
    const [head, , row] = t.stdout.split('\n').slice(2);
    expect(head).toMatch(/\sε, δ\s+D_α ≤\s+param/);
    expect(row).toMatch(/\s1, 0\.000001\s+0\.0\d+\s+sigma/);
    expect(t.stdout).toMatch(/\(α=[\d.]+, D_α ≤ 0\.0\d+ for \(ε=1, δ=0\.000001\)\)/);
  });

  it('a long audit says its verdict and each order’s worst pair before its rows', () => {
    const t = cli(
      'audit',
      '--data',
      'examples/heart.csv',
      '--query',
      'oldpeak',
      '--secret-column',
      'sex',
      '--given',
      'fbs',
      '--scale',
      '1',
      '--alpha',
      '2,inf',
      '--prior',
      'bootstrap:5',
      '--seed',
      '1',
    );
    const lines = t.stdout.split('\n');
    expect(lines[2]).toMatch(/^summary: fail, \d+ of 48 rows over ε = 1; α = 2: \d+ of 24 over, largest D_α [\d.]+ \(.+\); α = ∞: \d+ of 24 over/);
    expect(t.stdout).toMatch(/\nverdict: fail/);
  });
});

describe('JSON conventions', () => {
  it('±∞ and NaN are the strings "inf", "-inf" and "nan" in every field; null means not applicable', async () => {
    const { jsonText } = await import('../src/cli/format.js');
    expect(JSON.parse(jsonText({ a: Infinity, b: [-Infinity, 1], c: { d: Number.NaN }, e: null }))).toEqual({
      a: 'inf',
      b: ['-inf', 1],
      c: { d: 'nan' },
      e: null,
    });
  });
  it('every calibration names its noise parameter scale (projection results too)', () => {
    const j = JSON.parse(
      spawnSync(
        process.execPath,
        [
          BIN,
          'calibrate',
          '--data',
          'examples/heart.csv',
          '--query',
          'age,oldpeak',
          '--secret-column',
          'fbs',
          '--projection',
          'random:1',
          '--seed',
          '3',
          '--epsilon',
          '0.1',
          '--json',
        ],
        {
          encoding: 'utf8',
        },
      ).stdout,
    );
    expect(j.results[0].parameter).toBe('sigma');
    expect(j.results[0].scale).toBeGreaterThan(0);
    expect(j.results[0]).not.toHaveProperty('sigma');
  });
});
