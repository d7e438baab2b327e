import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { UCI_DIR } from './uci.js';

const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
/** Worker threads at once (these jobs are too short to start them otherwise), or when worth it (''). */
const run = (worth: string, ...a: string[]) =>
  spawnSync(process.execPath, [BIN, 'calibrate', '--json', ...a], { encoding: 'utf8', env: { ...process.env, PUFFERFISH_HELPERS_WORTH_MS: worth } });

/** The JSON of one run with each thread count, workers started at once or when worth it; every byte must agree. */
function sameAcrossThreads(...args: string[]): unknown {
  const outs = [
    run('', ...args, '--threads', '1'),
    run('0', ...args, '--threads', '2'),
    run('0', ...args, '--threads', '3'),
    run('', ...args, '--threads', '2'),
  ];
  for (const o of outs) expect(o.status, o.stderr).toBe(0);
  for (const o of outs.slice(1)) expect(o.stdout).toBe(outs[0].stdout);
  return JSON.parse(outs[0].stdout);
}

describe('worker threads (--threads): the numbers of one thread, bit for bit', () => {
  it('units of one calibration spread over workers: many pairs (adult by native country), every method', () => {
    const adult = join(UCI_DIR, 'adult', 'adult.data');
    const j = sameAcrossThreads(
      '--data',
      adult,
      '--query',
      'education-num',
      '--secret-column',
      'native-country',
      '--values',
      'United-States,Mexico,Philippines,Germany,Canada,India',
      '--method',
      'theorem,coupled,exact,best',
    ) as { results: { pairs: unknown[]; scale: number }[] };
    expect(j.results[0].pairs).toHaveLength(15);
    expect(j.results.every((r) => r.scale > 0)).toBe(true);
  }, 120_000);

  it('a prior class (bootstrap draws) and a grid of settings (whole calibrations on workers)', () => {
    const heart = join(UCI_DIR, 'heart-disease', 'processed.cleveland.data');
    sameAcrossThreads('--data', heart, '--query', 'oldpeak', '--secret-column', 'fbs', '--prior', 'bootstrap:12', '--mechanism', 'gaussian');
    const j = sameAcrossThreads('--scenario', 'heart', '--alpha', '1.5,2,4,inf', '--epsilon', '0.5,1', '--method', 'theorem,exact') as { results: unknown[] };
    expect(j.results).toHaveLength(16);
  }, 120_000);

  it("a Markov chain's laws spread over workers, its own methods and its laws' charge here: one calibration and a grid", () => {
    const dir = mkdtempSync(join(tmpdir(), 'pf-chain-'));
    const spec = (length: number) => {
      const f = join(dir, `chain-${length}.json`);
      const chains = [
        {
          name: 'a',
          transition: [
            [0.8, 0.2],
            [0.3, 0.7],
          ],
          initial: 'stationary',
        },
        {
          name: 'b',
          transition: [
            [0.9, 0.1],
            [0.1, 0.9],
          ],
          initial: [0.5, 0.5],
        },
      ];
      writeFileSync(
        f,
        JSON.stringify({ name: 'chain', markov: { states: ['0', '1'], chains, length, query: { count: '1' } }, mechanism: 'laplace', epsilon: 1 }),
      );
      return f;
    };
    const one = sameAcrossThreads('--spec', spec(20), '--alpha', '2', '--method', 'best') as { results: { winner: string; pairs: unknown[] }[] };
    expect(one.results[0].pairs).toHaveLength(40);
    // Eight calibrations (at least four per thread): a law source's go one by one, never whole to a worker.
    const grid = sameAcrossThreads('--spec', spec(20), '--alpha', '2,inf', '--epsilon', '0.5,1', '--method', 'exact,mqm-exact') as { results: unknown[] };
    expect(grid.results).toHaveLength(8);
    // A chain too long for the laws' table: its own methods never compute the laws, on a pool too.
    const long = run('0', '--spec', spec(100_000), '--alpha', 'inf', '--method', 'mqm-exact,group-dp', '--threads', '2');
    expect(long.status, long.stderr).toBe(0);
  }, 120_000);

  it('refuses a bad thread count with exit 2, and keeps a setting error naming its flag', () => {
    const bad = spawnSync(process.execPath, [BIN, 'calibrate', '--scenario', 'heart', '--threads', '0'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--threads: must be a whole number from 1 to 256/);
    const alpha = spawnSync(process.execPath, [BIN, 'calibrate', '--scenario', 'heart', '--threads', '2', '--mechanism', 'gaussian', '--alpha', 'inf,2'], {
      encoding: 'utf8',
    });
    expect(alpha.status).toBe(2);
    expect(alpha.stderr).toMatch(/--alpha: Gaussian noise cannot give α = ∞/);
    const worth = run('soon', '--scenario', 'heart', '--alpha', '1.5,2,3,4,5,6,7,8,9', '--threads', '2');
    expect(worth.status).toBe(2);
    expect(worth.stderr).toMatch(/PUFFERFISH_HELPERS_WORTH_MS: must be a number of milliseconds, 0 or more, got 'soon'/);
    expect(worth.stderr).not.toMatch(/ at /);
  });

  it("a vector query's grid: whole calibrations on workers (contamination box included), the same bytes as one thread", () => {
    const dir = mkdtempSync(join(tmpdir(), 'pufferfish-vgrid-'));
    const spec = join(dir, 'v.json');
    writeFileSync(
      spec,
      JSON.stringify({
        epsilon: 1,
        mechanism: 'laplace',
        priors: [
          {
            name: 'p',
            conditionals: {
              a: {
                values: [
                  [12, 40],
                  [13, 45],
                  [9, 40],
                ],
                counts: [5, 3, 2],
              },
              b: {
                values: [
                  [12, 38],
                  [14, 45],
                  [9, 50],
                ],
                counts: [2, 3, 5],
              },
            },
          },
        ],
      }),
    );
    const j = sameAcrossThreads(
      '--spec',
      spec,
      '--alpha',
      '1.5,2,3,inf',
      '--method',
      'coupled,theorem,pierquin',
      '--contamination',
      '0.05',
      '--domain',
      '8,15;36,52',
    ) as {
      results: { scale: number }[];
    };
    expect(j.results).toHaveLength(12);
    expect(j.results.every((r) => r.scale > 0)).toBe(true);
  });

  it("a vector query's account: each pair (both directions) whole on a worker, the same bytes as one thread", () => {
    const adult = join(UCI_DIR, 'adult', 'adult.data');
    const args = [
      'account',
      '--json',
      '--data',
      adult,
      '--query',
      'education-num,hours-per-week',
      '--secret-column',
      'relationship',
      '--values',
      'Husband,Not-in-family,Wife',
      '--release',
      'mechanism=laplace,scale=3,columns=education-num',
      '--release',
      'mechanism=gaussian,scale=4',
      '--alpha',
      '2,5',
    ];
    const go = (worth: string, threads: string) =>
      spawnSync(process.execPath, [BIN, ...args, '--threads', threads], { encoding: 'utf8', env: { ...process.env, PUFFERFISH_HELPERS_WORTH_MS: worth } });
    const outs = [go('', '1'), go('0', '2'), go('0', '3')];
    for (const o of outs) expect(o.status, o.stderr).toBe(0);
    for (const o of outs.slice(1)) expect(o.stdout).toBe(outs[0].stdout);
    expect(JSON.parse(outs[0].stdout).rows).toHaveLength(2);
    const scalar = spawnSync(process.execPath, [BIN, 'account', '--scenario', 'heart', '--release', 'mechanism=laplace,scale=1', '--threads', '2'], {
      encoding: 'utf8',
    });
    expect(scalar.stderr).toMatch(/^error: --threads: spread a vector query's account over threads; one column is accounted on one thread/);
  }, 120_000);
});
