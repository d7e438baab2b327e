import { describe, expect, it } from 'vitest';
import { InputError } from '../errors.js';
import { stationaryLaw, validateSpec } from './chain.js';
import { eigengapOf, gk16, groupDp, mqmApprox, mqmExact, type QuiltChain, quiltChains } from './mqm.js';

const mul = (A: number[][], B: number[][]) => A.map((r) => B[0].map((_, j) => r.reduce((s, v, l) => s + v * B[l][j], 0)));

/**
 * MQMExact by brute force, straight from the definition: for every node i and every quilt (a, b),
 * the largest ratio P(X_{i−a} = x, X_{i+b} = y | X_i = s)/P(· | X_i = t) over chains, pairs and
 * (x, y), computed from the joint law of (X_{i−a}, X_i, X_{i+b}) (for 'any': over the k point
 * starts, the upstream and prior parts maximised separately as the reference code does).
 */
function bruteMqm(chains: QuiltChain[], T: number, epsilon: number): number {
  const pow = (P: number[][], n: number) => {
    let M: number[][] = P.map((r, i) => r.map((_, j) => (i === j ? 1 : 0)));
    for (let t = 0; t < n; t++) M = mul(M, P);
    return M;
  };
  const ratio = (u: number, v: number) => (u === 0 && v === 0 ? Number.NaN : u / v);
  let worst = -1;
  for (let i = 1; i <= T; i++) {
    let best = Infinity;
    for (let a = 1; a <= i; a++) {
      for (let b = 1; b <= T - i + 1; b++) {
        let e = 1;
        for (const c of chains) {
          const P = c.transition as number[][];
          const k = P.length;
          const Pa = pow(P, a);
          const Pb = pow(P, b);
          const Pi = pow(P, i - 1);
          for (let s = 0; s < k; s++) {
            for (let t = 0; t < k; t++) {
              if (s === t) continue;
              let down = 1;
              if (b <= T - i) {
                down = Number.NaN;
                for (let y = 0; y < k; y++) {
                  const r = ratio(Pb[s][y], Pb[t][y]);
                  if (!Number.isNaN(r) && !(r <= down)) down = r;
                }
              }
              let up = 1;
              if (a < i) {
                let u = Number.NaN;
                for (let x = 0; x < k; x++) {
                  const r = ratio(Pa[x][s], Pa[x][t]);
                  if (!Number.isNaN(r) && !(r <= u)) u = r;
                }
                const starts = c.initial === 'any' ? P.map((_, x) => P.map((_, z) => (z === x ? 1 : 0))) : [c.initial as number[]];
                let prior = 0;
                for (const q of starts) {
                  const m = mul([q], Pi)[0];
                  if (m[s] > 0) prior = Math.max(prior, m[t] / m[s]);
                }
                up = u * prior;
              }
              if (down * up > e) e = down * up;
            }
          }
        }
        const lambda = epsilon - Math.log(e);
        if (lambda >= 0) best = Math.min(best, (a + b - 1) / lambda);
      }
    }
    worst = Math.max(worst, best);
  }
  return worst;
}

const three = [
  [0.5, 0.3, 0.2],
  [0.2, 0.6, 0.2],
  [0.1, 0.3, 0.6],
];
const binary = [
  [0.8, 0.2],
  [0.3, 0.7],
];

describe('mqmExact', () => {
  it('equals the brute-force search over every node and quilt (given, stationary and any starts; a class)', () => {
    const cases: [QuiltChain[], number, number][] = [
      [[{ transition: binary, initial: stationaryLaw(binary).law }], 25, 1],
      [[{ transition: binary, initial: [0.95, 0.05] }], 25, 1],
      [[{ transition: three, initial: 'any' }], 20, 1],
      [[{ transition: three, initial: [0.2, 0.2, 0.6] }], 18, 0.5],
      [
        [
          { transition: three, initial: 'any' },
          { transition: [three[1], three[2], three[0]], initial: stationaryLaw([three[1], three[2], three[0]]).law },
        ],
        16,
        2,
      ],
    ];
    for (const [chains, T, epsilon] of cases) {
      expect(mqmExact(chains, T, epsilon).sigma).toBeCloseTo(bruteMqm(chains, T, epsilon), 9);
    }
  });

  it('a class needs at least the noise of each of its chains; L scales the answer', () => {
    const a = { transition: binary, initial: 'any' as const };
    const b = {
      transition: [
        [0.9, 0.1],
        [0.1, 0.9],
      ],
      initial: 'any' as const,
    };
    const both = mqmExact([a, b], 100, 1).scale;
    expect(both).toBeGreaterThanOrEqual(mqmExact([a], 100, 1).scale);
    expect(both).toBeGreaterThanOrEqual(mqmExact([b], 100, 1).scale);
    expect(mqmExact([a], 100, 1, { lipschitz: 2 }).scale).toBe(2 * mqmExact([a], 100, 1).scale);
  });

  it('independent steps need exactly the DP scale L/ε (no correlation to hide)', () => {
    const row = [0.3, 0.7];
    expect(mqmExact([{ transition: [row, row], initial: row }], 100, 1).scale).toBeCloseTo(1, 12);
  });

  it('reports the worst node and its quilt; a chain that never mixes falls back to group DP', () => {
    const r = mqmExact([{ transition: binary, initial: stationaryLaw(binary).law }], 100, 1);
    expect(r.node).toBeGreaterThan(1);
    expect(r.a + r.b - 1).toBeLessThanOrEqual(r.sigma); // σ = card/(ε − e) ≥ card/ε
    const stuck = mqmExact(
      [
        {
          transition: [
            [1, 0],
            [0, 1],
          ],
          initial: [0.5, 0.5],
        },
      ],
      10,
      1,
    );
    expect(stuck.scale).toBe(groupDp(10, 1));
  });

  it('takes a long five-state chain in well under a second', () => {
    const started = performance.now();
    const P = [
      [0.3, 0.05, 0.36, 0, 0.29],
      [0.01, 0.28, 0.32, 0, 0.39],
      [0.03, 0.06, 0.67, 0.02, 0.22],
      [0.04, 0, 0.38, 0.39, 0.19],
      [0.03, 0.05, 0.23, 0.01, 0.68],
    ];
    expect(mqmExact([{ transition: P, initial: 'any' }], 1461, 1).scale).toBeGreaterThan(1);
    expect(performance.now() - started).toBeLessThan(3000);
  });
});

describe('groupDp, mqmApprox, gk16', () => {
  it('group DP is L·T/ε', () => {
    expect(groupDp(100, 1)).toBe(100);
    expect(groupDp(1461, 0.5, 2)).toBe(5844);
  });

  it("MQMApprox's π_min is never above the exact stationary law's (P^100's first row overstates a slowly mixing chain's rare state)", () => {
    // π = (0.0099…, 0.9900…) with |λ₂|^100 ≈ 0.49: P^100's first row is still near (0.5, 0.5).
    const slow = [
      [0.993, 0.007],
      [0.00007, 0.99993],
    ];
    expect(eigengapOf(slow, 'binary').piMin).toBeLessThanOrEqual(Math.min(...stationaryLaw(slow).law));
    // The same shape mixing faster, so MQMExact is cheap: P^100's π_min (0.058, not 0.01) gave b = 507.4,
    // below the exact influence's 550.2, at T = 600.
    const faster = [
      [0.9703, 0.0297],
      [0.0003, 0.9997],
    ];
    const cls = eigengapOf(faster, 'binary');
    expect(cls.piMin).toBeLessThanOrEqual(Math.min(...stationaryLaw(faster).law));
    const quilts = quiltChains(
      validateSpec({ states: ['dry', 'wet'], chains: [{ name: 'c', transition: faster, initial: 'stationary' }], length: 600, query: { count: 'wet' } }),
    );
    expect(mqmApprox(cls, 600, 1)).toBeGreaterThanOrEqual(mqmExact(quilts, 600, 1).scale);
  });
  it('MQMApprox needs more noise than MQMExact on the same chain, and less than group DP', () => {
    const approx = mqmApprox(eigengapOf(binary, 'binary'), 100, 1);
    expect(approx).toBeGreaterThan(mqmExact([{ transition: binary, initial: stationaryLaw(binary).law }], 100, 1).scale);
    expect(approx).toBeLessThan(groupDp(100, 1));
    expect(mqmApprox(eigengapOf(binary, 'binary'), 100, 1, 2)).toBe(2 * approx);
  });

  it('GK16 applies to binary chains only, with scale 2/ε for independent steps', () => {
    expect(gk16(three, 100, 1)).toEqual({ notApplicable: 'GK16 handles binary chains only; this one has 3 states' });
    const r = gk16(
      [
        [0.4, 0.6],
        [0.4, 0.6],
      ],
      100,
      1,
    );
    expect(r).toEqual({ scale: 2 });
    expect(gk16(binary, 100, 1)).toHaveProperty('notApplicable');
  });

  /** What a call is refused with: the InputError's field and message, or what else it did. */
  const refusal = (run: () => unknown): { path: string | undefined; message: string } => {
    try {
      run();
    } catch (e) {
      return e instanceof InputError ? { path: e.path, message: e.message } : { path: String(e), message: String(e) };
    }
    return { path: 'no error', message: 'no error' };
  };
  const field = (run: () => unknown) => refusal(run).path;
  const message = (run: () => unknown) => refusal(run).message;

  it('bad arguments name their field', () => {
    expect(field(() => mqmApprox({ gap: 0, piMin: 0.4 }, 100, 1))).toBe('eigengap.gap');
    expect(field(() => mqmApprox({ gap: 0.5, piMin: -1 }, 100, 1))).toBe('eigengap.piMin');
    expect(field(() => mqmExact([{ transition: binary, initial: 'any' }], 0, 1))).toBe('length');
    expect(field(() => groupDp(10, 0))).toBe('epsilon');
    expect(field(() => gk16(binary, 10, 1, -1))).toBe('lipschitz');
    expect(field(() => eigengapOf(three, 'binary'))).toBe('transition');
  });

  it('a periodic chain is refused by MQMApprox for what it is, not for a number it produced', () => {
    const flip = [
      [0, 1],
      [1, 0],
    ];
    const cycle = [
      [0, 1, 0],
      [0, 0, 1],
      [1, 0, 0],
    ];
    expect(message(() => eigengapOf(flip, 'binary'))).toMatch(/^transition: the eigengap is 0 \(\|λ₂\| = 1: the chain is periodic or reducible/);
    expect(message(() => eigengapOf(flip, 'multi'))).toMatch(/^transition: the chain is periodic or has a transient state/);
    // The 3-cycle's stationary law is uniform; its powers cycle, so the reference's P^4096 row is a unit vector.
    expect(message(() => eigengapOf(cycle, 'multi'))).toMatch(/^transition: the chain is periodic or has a transient state .*aperiodic irreducible/);
  });
});

describe('short chains and specs', () => {
  it('T = 1 and T = 2 give the DP scale L/ε or a valid quilt scale', () => {
    expect(mqmApprox({ gap: 0.5, piMin: 0.4 }, 1, 1)).toBe(1);
    expect(mqmExact([{ transition: binary, initial: 'any' }], 1, 1).scale).toBe(1);
    expect(mqmExact([{ transition: binary, initial: 'any' }], 2, 1, { nodes: 'interior' }).scale).toBe(
      mqmExact([{ transition: binary, initial: 'any' }], 2, 1).scale,
    );
    expect(mqmApprox({ gap: 0.5, piMin: 0.4 }, 2, 1)).toBeGreaterThanOrEqual(1);
  });

  it('quiltChains reads a validated spec', () => {
    const model = validateSpec({
      states: ['a', 'b'],
      chains: [
        { name: 's', transition: binary, initial: 'stationary' },
        { name: 'x', transition: binary, initial: 'any' },
      ],
      length: 100,
      query: { count: 'b' },
    });
    const chains = quiltChains(model);
    expect(chains.map((c) => c.initial)).toEqual([[0.6, 0.4], 'any']);
    expect(mqmExact(chains, 100, 1).scale).toBeCloseTo(10.640192981608111, 9); // the 'any' chain dominates
  });
});
