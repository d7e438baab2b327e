import { calibrate, METHOD_LABEL, type Mechanism, type SingleMethod } from '../calibrate/calibrate.js';
import { REGISTRY } from '../mechanisms/registry.js';
import type { Scenario } from '../distribution/scenario.js';
import { pairCouplings } from '../coupling/pairs.js';
import { distances } from '../coupling/comonotone.js';
import { wInf } from '../coupling/wasserstein.js';
import { logExpectationExp } from '../numerics/logExpectation.js';
import type { Row } from './charts.js';

/** The data of each figure as plain rows; every scale comes from `calibrate`, as in `calibrate --json`. */
export interface Dataset {
  id: string;
  scenario: Scenario;
}

const methodLabel = (mechanism: Mechanism, m: SingleMethod) => (m === 'theorem' ? REGISTRY[mechanism].theoremLabel : METHOD_LABEL[m]);

/** One calibration as a figure row. */
function point(d: Dataset, mechanism: Mechanism, method: SingleMethod, alpha: number, epsilon: number): Row {
  // The paper's figures: each method's own condition at α, as published.
  const r = calibrate(d.scenario, { mechanism, method, alpha, epsilon }, { ownOrder: true });
  return { dataset: d.id, mechanism, method: methodLabel(mechanism, method), methodKey: method, alpha, epsilon, scale: r.scale, variance: r.variance };
}

/** Figure 1, rows 1–3: Laplace b (Theorem 1 vs Cor. 3.1) and Gaussian σ (Theorem 2 vs Cor. 3.1) against α. */
export function fig1Scales(ds: Dataset[], alphas: number[], epsilons: number[], tick: () => void): Row[] {
  const rows: Row[] = [];
  for (const d of ds)
    for (const mechanism of ['laplace', 'gaussian'] as Mechanism[])
      for (const method of ['theorem', 'pierquin'] as SingleMethod[]) {
        for (const epsilon of epsilons) for (const alpha of alphas) rows.push(point(d, mechanism, method, alpha, epsilon));
        tick();
      }
  return rows;
}

/** Figure 1, rows 4–5: noise variance 2b² (Theorem 1) vs σ² (Theorem 2) against α (fixed ε) or ε (fixed α). */
export function fig1Variance(ds: Dataset[], grid: { alpha: number; epsilon: number }[], tick: () => void): Row[] {
  const rows: Row[] = [];
  for (const d of ds) {
    for (const mechanism of ['laplace', 'gaussian'] as Mechanism[]) {
      for (const { alpha, epsilon } of grid) {
        const r = point(d, mechanism, 'theorem', alpha, epsilon);
        const def = REGISTRY[mechanism];
        rows.push({ ...r, mechanism: `${def.title}, ${def.theoremLabel} (${def.varianceFormula})` });
      }
    }
    tick();
  }
  return rows;
}

/**
 * Figure 2: W_α(b) = (E_π* e^{α|x−x′|/b})^{1/α} for several b against the bound e^{(α−1)ε/α}
 * (eq. 14): b satisfies Theorem 1's condition exactly where its curve is below the bound.
 */
export function fig2Walpha(ds: Dataset[], bs: number[], alphas: number[], epsilon: number, tick: () => void): Row[] {
  const rows: Row[] = [];
  for (const d of ds) {
    const c = pairCouplings(d.scenario)[0].coupling;
    const dist = distances(c);
    for (const b of bs)
      for (const alpha of alphas) {
        const lse = logExpectationExp(
          c.mass,
          dist.map((z) => (alpha * z) / b),
        );
        rows.push({ dataset: d.id, curve: `b = ${b}`, b, alpha, epsilon, value: Math.exp(lse.value / alpha) });
      }
    for (const alpha of alphas)
      rows.push({ dataset: d.id, curve: 'bound e^((α−1)ε/α)', b: '', alpha, epsilon, value: Math.exp(((alpha - 1) * epsilon) / alpha) });
    tick();
  }
  return rows;
}

/** Figure 3: Theorem 1 and Cor. 3.1 against α up to 10⁴, with the limit W∞/ε. */
export function fig3LargeAlpha(ds: Dataset[], alphas: number[], epsilon: number, tick: () => void): { rows: Row[]; limits: Row[] } {
  const rows: Row[] = [];
  const limits: Row[] = [];
  for (const d of ds) {
    for (const method of ['theorem', 'pierquin'] as SingleMethod[]) for (const alpha of alphas) rows.push(point(d, 'laplace', method, alpha, epsilon));
    limits.push({ dataset: d.id, mechanism: 'laplace', epsilon, limit: wInf(pairCouplings(d.scenario)[0].coupling) / epsilon });
    tick();
  }
  return { rows, limits };
}

/** Figure 4: every method on one chart per dataset and mechanism, and the variance exact saves. */
export function fig4Methods(ds: Dataset[], alphas: number[], epsilon: number, tick: () => void): { rows: Row[]; saved: Row[] } {
  const rows: Row[] = [];
  const saved: Row[] = [];
  const methods: Record<Mechanism, SingleMethod[]> = {
    laplace: ['wasserstein-inf', 'pierquin', 'theorem', 'coupled', 'exact'],
    gaussian: ['pierquin', 'theorem', 'coupled', 'exact'],
    exponential: [],
    geometric: [],
  };
  for (const d of ds) {
    for (const mechanism of ['laplace', 'gaussian'] as Mechanism[]) {
      for (const alpha of alphas) {
        const got = methods[mechanism].map((m) => point(d, mechanism, m, alpha, epsilon));
        rows.push(...got);
        const th = got.find((r) => r.methodKey === 'theorem')!,
          ex = got.find((r) => r.methodKey === 'exact')!;
        saved.push({ dataset: d.id, mechanism, alpha, epsilon, theorem: th.scale, exact: ex.scale, ratio: Number(ex.variance) / Number(th.variance) });
      }
      tick();
    }
  }
  return { rows, saved };
}
