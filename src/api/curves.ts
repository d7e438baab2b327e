import { METHOD_LABEL, type Mechanism, type SingleMethod } from '../calibrate/calibrate.js';
import type { BoxContamination } from '../calibrate/points.js';
import type { AnyScenario } from '../distribution/lawKind.js';
import { calibrationGrid, type GridRow, type GridRunner } from './grid.js';

/** A point of a scale-against-α curve. */
export interface ScalePoint {
  mechanism: Mechanism;
  /** The method's label (as the grid's rows name it). */
  method: string;
  alpha: number;
  scale: number;
}

/** A point of a variance-against-ε curve. */
export interface VariancePoint {
  mechanism: Mechanism;
  method: string;
  epsilon: number;
  variance: number;
}

/** The points of the calibration curves, and the (family, method) curves left undrawn with why. */
export interface Curves {
  byAlpha: ScalePoint[];
  byEpsilon: VariancePoint[];
  /** `family method` of the variance curves with a point of no noise (a log axis cannot show it) or a refused point. */
  notPlotted: string[];
}

/** The budgets of the variance-against-ε curves. */
const CURVE_EPSILONS: readonly number[] = [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 5];

/**
 * The orders of the scale-against-α curves: 17 from 1.25 to 5.25, or to 1.2 α where the chosen
 * order lies beyond (so it sits on the axis).
 * (e.g. curveOrders(2) has 17 orders)
 */
function curveOrders(alpha: number): number[] {
  const top = Number.isFinite(alpha) ? Math.max(5.25, alpha * 1.2) : 5.25;
  return Array.from({ length: 17 }, (_, i) => Number((1.25 + ((top - 1.25) * i) / 16).toPrecision(4)));
}

/** What the curves are drawn for: the families and methods of a grid, its order and budget. */
export interface CurveRequest {
  mechanisms: readonly Mechanism[];
  methods: readonly SingleMethod[];
  alpha: number;
  epsilon: number;
  contamination?: BoxContamination;
}

/**
 * The curves of a calibration grid (Figures 1 and 3 of the paper): the scale against α at the
 * budget, per (family, method), and the variance against ε at the order for each row `shown` (the
 * grid's own rows at (α, ε)). The closed-form methods are drawn as curves; `exact` (a certified
 * quadrature per point) only at the chosen order, from its row. Every point on the runner at once;
 * what a family's rules refuse at an order is left out of its curve.
 * @example (await calibrationCurves(builtinScenario('heart'), { mechanisms: ['laplace'], methods: ['theorem'], alpha: 2, epsilon: 1 }, [], thisThread)).byAlpha.length // 17
 */
export async function calibrationCurves(scenario: AnyScenario, req: CurveRequest, shown: readonly GridRow[], runner: GridRunner): Promise<Curves> {
  const { mechanisms, alpha, epsilon } = req;
  const closed = req.methods.filter((m) => m !== 'exact');
  const shared = req.contamination ? { contamination: req.contamination } : {};
  const row = (mechanism: Mechanism, method: SingleMethod) => shown.find((r) => r.mechanism === mechanism && r.method === method);
  const drawn = mechanisms.flatMap((mechanism) => closed.filter((method) => row(mechanism, method)).map((method) => ({ mechanism, method })));
  // Refusals are listed (and not drawn): a curve shows where the rule applies.
  const [alphaRows, ...epsRows] = await Promise.all([
    closed.length ? calibrationGrid(scenario, { mechanisms, methods: closed, alpha: curveOrders(alpha), epsilon, ...shared }, runner, []) : [],
    ...drawn.map(({ mechanism, method }) =>
      calibrationGrid(scenario, { mechanisms: [mechanism], methods: [method], alpha, epsilon: CURVE_EPSILONS, ...shared }, runner, []),
    ),
  ]);
  const out: Curves = { byAlpha: [], byEpsilon: [], notPlotted: [] };
  for (const mechanism of mechanisms)
    for (const method of req.methods) {
      const label = METHOD_LABEL[method];
      const here = row(mechanism, method);
      if (method === 'exact') {
        if (here && Number.isFinite(alpha)) out.byAlpha.push({ mechanism, method: label, alpha, scale: here.scale });
      } else
        for (const r of alphaRows)
          if (r.mechanism === mechanism && r.method === method) out.byAlpha.push({ mechanism, method: label, alpha: r.alpha, scale: r.scale });
      if (!here) continue;
      const k = drawn.findIndex((d) => d.mechanism === mechanism && d.method === method);
      const vs = method === 'exact' ? [{ epsilon, variance: here.variance }] : epsRows[k].map((r) => ({ epsilon: r.epsilon, variance: r.variance }));
      const kept = vs.filter((x) => x.variance > 0);
      if (kept.length < (method === 'exact' ? 1 : CURVE_EPSILONS.length)) out.notPlotted.push(`${mechanism} ${label}`);
      for (const x of kept) out.byEpsilon.push({ mechanism, method: label, ...x });
    }
  return out;
}
