import { describe, expect, it } from 'vitest';
import { calibrationGrid, gridFamilies, thisThread, type GridRunner, type Skipped } from '../src/api/grid.js';
import { calibrationCurves } from '../src/api/curves.js';
import { calibrateFor } from '../src/api/guarantee.js';
import { calibrate } from '../src/calibrate/calibrate.js';
import { builtinScenario } from '../src/scenarios/builtin.js';
import { markovScenario } from '../src/markov/source.js';
import { stickyChain } from './chains.js';
import { runInProcess } from './inProcess.js';
import { InputError } from '../src/errors.js';

const heart = builtinScenario('heart');

/** The sticky two-state chain of `length` steps releasing `query`, as a law source. */
const twoStateChain = (length: number, query: object) => markovScenario(stickyChain(length, query), 'chain').scenario;

describe("the page's calibration grid (src/api/grid.ts): one function, the library's numbers", () => {
  it('calibrates every (family, method) that applies, each as calibrate does, and lists the rest with the rule table’s reason', async () => {
    const skipped: Skipped[] = [];
    const rows = await calibrationGrid(
      heart,
      { mechanisms: ['laplace', 'gaussian'], methods: ['theorem', 'coupled', 'exact'], alpha: 0.5, epsilon: 1 },
      thisThread,
      skipped,
    );
    for (const r of rows) {
      const own = calibrate(heart, { mechanism: r.mechanism, method: r.method as 'theorem', alpha: 0.5, epsilon: 1 });
      expect(r.scale, `${r.mechanism} ${r.method}`).toBe(own.scale);
    }
    // Gaussian noise has no Rényi order below 1: listed once for every method, never silently dropped;
    // each Laplace method is a row or a reason.
    expect(skipped.filter((s) => s.mechanism === 'gaussian')).toEqual([{ mechanism: 'gaussian', method: 'every method', reason: expect.any(String) }]);
    expect(rows.length + skipped.filter((s) => s.mechanism === 'laplace').length).toBe(3);
    expect(rows.length).toBeGreaterThan(0);
    for (const s of skipped) expect(s.reason.length).toBeGreaterThan(10);
  });

  it('a family that cannot give the order is skipped while another can, and kept (its error then speaks) when none can', () => {
    const skipped: Skipped[] = [];
    expect(gridFamilies(['laplace', 'gaussian'], Infinity, skipped)).toEqual(['laplace']);
    expect(skipped).toEqual([{ mechanism: 'gaussian', method: 'every method', reason: expect.any(String) }]);
    const none: Skipped[] = [];
    expect(gridFamilies(['gaussian'], Infinity, none)).toEqual(['gaussian']);
    expect(none).toEqual([]);
  });

  it('an (ε, δ) target gives each method the scale of the library’s (ε, δ) calibration', async () => {
    const skipped: Skipped[] = [];
    const rows = await calibrationGrid(
      heart,
      { mechanisms: ['gaussian'], methods: ['theorem', 'exact'], alpha: 2, epsilon: 1, delta: 1e-6 },
      thisThread,
      skipped,
    );
    expect(skipped).toEqual([]);
    for (const r of rows) {
      const own = calibrateFor(heart, { kind: 'epsilon-delta', epsilon: 1, delta: 1e-6 }, { mechanism: 'gaussian', method: r.method as 'theorem' });
      expect(r.scale, r.method).toBe(own.scale);
      expect(r.renyiEpsilon).toBeGreaterThan(0);
    }
  });

  it("a chain's own methods are asked of the calibration, each run's units reported as progress", async () => {
    const scenario = twoStateChain(8, { count: 'b' });
    const skipped: Skipped[] = [];
    const steps: string[] = [];
    let units = 0;
    const rows = await calibrationGrid(
      scenario,
      { mechanisms: ['laplace', 'gaussian'], methods: ['theorem', 'mqm-exact', 'group-dp'], alpha: 2, epsilon: 1 },
      thisThread,
      skipped,
      () => ({ step: (_k, what) => steps.push(what), done: () => {}, within: () => () => units++ }),
    );
    for (const r of rows) {
      const own = calibrate(scenario, { mechanism: r.mechanism, method: r.method as 'theorem', alpha: 2, epsilon: 1 });
      expect(r.scale, `${r.mechanism} ${r.label}`).toBe(own.scale);
    }
    expect(rows.map((r) => `${r.mechanism} ${r.label}`)).toEqual(['laplace Theorem 1/2', 'laplace mqm-exact', 'laplace group-dp', 'gaussian Theorem 1/2']);
    // The chain's methods calibrate Laplace noise: for Gaussian noise each is listed with the calibration's reason.
    expect(skipped.map((s) => `${s.mechanism} ${s.method}`)).toEqual(['gaussian mqm-exact', 'gaussian group-dp']);
    expect(skipped[0].reason).toMatch(/Laplace/);
    expect(units).toBeGreaterThan(0);
    expect(steps).toContain('laplace Theorem 1/2');
  });

  it("on a chain each method is asked of the calibration: a histogram's own refusal is the reason, not a method the rule table would suggest", async () => {
    const scenario = twoStateChain(6, { histogram: true });
    const skipped: Skipped[] = [];
    const rows = await calibrationGrid(
      scenario,
      { mechanisms: ['exponential', 'geometric'], methods: ['theorem', 'coupled', 'wasserstein-inf'], alpha: 2, epsilon: 1 },
      thisThread,
      skipped,
    );
    // The exponential mechanism has no product noise: each method refused with that reason.
    expect(skipped.filter((s) => s.mechanism === 'exponential').map((s) => s.method)).toEqual(['Theorem 1/2', 'coupled', 'W∞ (Song)']);
    for (const s of skipped.filter((x) => x.mechanism === 'exponential')) expect(s.reason).toMatch(/^vector queries take laplace, gaussian or geometric noise/);
    // Integer counts per state take geometric noise (docs/math.md §21): coupled and W∞, each as calibrate gives it.
    expect(rows.map((r) => `${r.mechanism} ${r.method}`)).toEqual(['geometric coupled', 'geometric wasserstein-inf']);
    for (const r of rows) expect(r.scale).toBe(calibrate(scenario, { mechanism: 'geometric', method: r.method as 'coupled', alpha: 2, epsilon: 1 }).scale);
    expect(skipped.find((s) => s.mechanism === 'geometric')?.reason).toMatch(/continuous Laplace/);
  });

  it('the command line calibrates through this grid: its rows, in the order method × α × ε, are the grid’s to the last bit (Rényi and (ε, δ))', async () => {
    for (const [flags, req] of [
      [['--alpha', '2,4', '--epsilon', '0.5,1'], { alpha: [2, 4], epsilon: [0.5, 1] }],
      [['--alpha', '32,64', '--epsilon', '1,2', '--delta', '1e-6'], { alpha: [32, 64], epsilon: [1, 2], delta: 1e-6, orders: [32, 64] }],
    ] as const) {
      const cli = await runInProcess('calibrate', '--scenario', 'heart', '--mechanism', 'gaussian', '--method', 'theorem,exact', '--json', ...flags);
      expect(cli.status, cli.stderr).toBe(0);
      const printed = JSON.parse(cli.stdout).results as { method: string; alpha: number; epsilon: number; scale: number }[];
      const rows = await calibrationGrid(heart, { mechanisms: ['gaussian'], methods: ['theorem', 'exact'], ...req }, thisThread, 'throw');
      expect(printed.map((r) => [r.method, r.alpha, r.epsilon, r.scale])).toEqual(rows.map((r) => [r.method, r.alpha, r.epsilon, r.scale]));
      expect(rows).toHaveLength('delta' in req ? 4 : 8);
    }
  });

  it('asked to throw, a refusal stops the grid as the InputError the calibration raises; asked to list, the same reason is listed', async () => {
    const req = { mechanisms: ['laplace'], methods: ['wasserstein-inf', 'theorem'], alpha: 0.5, epsilon: 1, releases: 2 } as const;
    const listed: Skipped[] = [];
    const rows = await calibrationGrid(heart, req, thisThread, listed);
    expect(rows.map((r) => r.method)).toEqual(['wasserstein-inf']);
    expect(listed).toHaveLength(1);
    const thrown = await calibrationGrid(heart, req, thisThread, 'throw').catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(InputError);
    expect((thrown as InputError).reason).toBe(listed[0].reason);
    expect(() => calibrate(heart, { mechanism: 'laplace', method: 'theorem', alpha: 0.5, epsilon: 1, releases: 2 })).toThrow(listed[0].reason);
  });

  it("the page's curves: every point is calibrate's at its order or budget, exact only at the chosen order, refused orders left out", async () => {
    const req = { mechanisms: ['laplace', 'gaussian'], methods: ['theorem', 'wasserstein-inf', 'exact'], alpha: 2, epsilon: 1 } as const;
    const shown = await calibrationGrid(heart, req, thisThread, []);
    const c = await calibrationCurves(heart, req, shown, thisThread);
    const label = { theorem: 'Theorem 1/2', 'wasserstein-inf': 'W∞ (Song)', exact: 'exact' } as const;
    for (const p of c.byAlpha) {
      const method = (Object.keys(label) as (keyof typeof label)[]).find((k) => label[k] === p.method)!;
      expect(p.scale, `${p.mechanism} ${p.method} α=${p.alpha}`).toBe(calibrate(heart, { mechanism: p.mechanism, method, alpha: p.alpha, epsilon: 1 }).scale);
    }
    // Theorem's curve has all 17 orders for each family; exact one point, at α = 2.
    expect(c.byAlpha.filter((p) => p.mechanism === 'laplace' && p.method === 'Theorem 1/2')).toHaveLength(17);
    expect(c.byAlpha.filter((p) => p.method === 'exact').map((p) => p.alpha)).toEqual([2, 2]);
    // The W∞ mechanism is Laplace's (and the exponential's): Gaussian's rule table refuses it at every order, so no Gaussian point.
    expect(c.byAlpha.some((p) => p.mechanism === 'gaussian' && p.method === label['wasserstein-inf'])).toBe(false);
    expect(c.byAlpha.filter((p) => p.mechanism === 'laplace' && p.method === label['wasserstein-inf']).length).toBeGreaterThan(0);
    for (const v of c.byEpsilon.filter((x) => x.method !== 'exact')) {
      const method = (Object.keys(label) as (keyof typeof label)[]).find((k) => label[k] === v.method)!;
      expect(v.variance).toBe(calibrate(heart, { mechanism: v.mechanism, method, alpha: 2, epsilon: v.epsilon }).variance);
    }
    expect(c.byEpsilon.filter((x) => x.mechanism === 'laplace' && x.method === 'Theorem 1/2')).toHaveLength(10);
  });

  it('progress positions never move back though jobs report out of order (a pool), and the command line’s units end at their total', async () => {
    // A runner whose second job reports before the first, as two workers may.
    const shuffled: GridRunner = {
      ...thisThread,
      calibrateSettled: async (jobs, onDone, onUnits) => {
        const out = await thisThread.calibrateSettled(jobs);
        onUnits?.(1, 1, 2);
        onUnits?.(0, 1, 2);
        onDone?.(1);
        onUnits?.(1, 2, 2);
        onDone?.(2);
        return out;
      },
    };
    const seen: number[] = [];
    await calibrationGrid(heart, { mechanisms: ['laplace'], methods: ['theorem', 'coupled'], alpha: 2, epsilon: 1 }, shuffled, [], () => ({
      step: (k) => seen.push(k),
      done: (k) => seen.push(k),
      within: (k) => (d, t) => seen.push(k + d / t),
    }));
    expect(seen).toEqual([0, 1, 1.5, 2, 2]); // job 0 at 0.5 and one job done (1) come after 1.5: not shown
    const before = process.env.PUFFERFISH_PROGRESS_EVERY_MS;
    process.env.PUFFERFISH_PROGRESS_EVERY_MS = '0';
    try {
      const cli = await runInProcess('calibrate', '--scenario', 'heart', '--method', 'best,theorem', '--threads', '1');
      const lines = [...cli.stderr.matchAll(/calibrate: (\d+)\/(\d+) units/g)].map((m) => [Number(m[1]), Number(m[2])]);
      expect(lines.length).toBeGreaterThan(2);
      for (const [k, [d, t]] of lines.entries()) {
        expect(d).toBeLessThanOrEqual(t);
        expect(t).toBe(lines[0][1]);
        if (k > 0) expect(d).toBeGreaterThanOrEqual(lines[k - 1][0]);
      }
      expect(lines.at(-1)![0]).toBe(lines.at(-1)![1]);
    } finally {
      if (before === undefined) delete process.env.PUFFERFISH_PROGRESS_EVERY_MS;
      else process.env.PUFFERFISH_PROGRESS_EVERY_MS = before;
    }
  });

  it('asked to throw, no calibration starts after a refusal on this thread; an (ε, δ) grid’s bad ε or δ is the request’s error, not a skipped row', async () => {
    const heard: number[] = [];
    const good = { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 } as const;
    const out = await thisThread.calibrateSettled(
      [
        { scenario: heart, settings: { ...good, alpha: -1 } },
        { scenario: heart, settings: good },
      ],
      undefined,
      (k) => heard.push(k),
      true,
    );
    expect(out[0]).toBeInstanceOf(InputError);
    expect(out[1]).toBe(out[0]);
    expect(heard).not.toContain(1);
    for (const bad of [
      { epsilon: 0, delta: 1e-6 },
      { epsilon: 1, delta: 0 },
    ]) {
      const skipped: Skipped[] = [];
      const e = await calibrationGrid(heart, { mechanisms: ['laplace'], methods: ['theorem'], alpha: 2, ...bad }, thisThread, skipped).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(InputError);
      expect((e as InputError).path).toBe(bad.epsilon === 0 ? 'epsilon' : 'delta');
      expect(skipped).toEqual([]);
    }
  });
});
