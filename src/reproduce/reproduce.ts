import { mkdirSync } from 'node:fs';
import { writeTextAtomically } from '../io/atomicWrite.js';
import { join } from 'node:path';
import { BUILTIN_IDS } from '../scenarios/builtin.js';
import { uciScenario } from '../uci/files.js';
import { savedChart, scaleVsAlphaChart, varianceChart, walphaChart, type Row, type VegaLiteSpec } from './charts.js';
import { fig1Scales, fig1Variance, fig2Walpha, fig3LargeAlpha, fig4Methods, type Dataset } from './figures.js';
import { toCsv, toPng, toSvg } from './render.js';

/** Which of the paper's figures to reproduce, where to write them, and how fine the grid. */
export interface ReproduceOptions {
  out: string;
  quick?: boolean;
  /** Figures to make (1–4); default all. */
  figures?: number[];
  /** Folder with the UCI files as shipped (adult/adult.data, …); default the embedded counts. */
  dataDir?: string;
  /** Called after each piece of work, with what it was. */
  onProgress?: (done: number, total: number, label: string) => void;
}

/** The files `reproduce` wrote. */
export interface ReproduceResult {
  files: string[];
  source: string;
}

const range = (from: number, to: number, step: number) =>
  Array.from({ length: Math.round((to - from) / step) + 1 }, (_, i) => Number((from + i * step).toPrecision(12)));
const geometric = (from: number, to: number, n: number) => Array.from({ length: n }, (_, i) => Number((from * (to / from) ** (i / (n - 1))).toPrecision(6)));

/**
 * Regenerates the paper's Figures 1–3 and our Figure 4 for adult, heart (Cleveland) and student
 * (mat, por): CSV (the numbers), SVG and PNG (one Vega-Lite spec each), and REPORT.md with the
 * headline ratios. Output is deterministic: same inputs, same bytes.
 * @example (await reproduce({ out: scratch, quick: true, figures: [1] })).files.length > 0 // true (scratch: a folder of yours)
 */
export async function reproduce(o: ReproduceOptions): Promise<ReproduceResult> {
  const figures = new Set(o.figures ?? [1, 2, 3, 4]);
  const q = o.quick ?? false;
  const ds: Dataset[] = BUILTIN_IDS.map((id) => ({ id, scenario: uciScenario(id, o.dataDir) }));
  const grid = {
    alpha: q ? range(1.5, 5, 0.5) : range(1.05, 5, 0.05),
    epsilon: q ? range(0.5, 5, 0.5) : range(0.05, 5, 0.05),
    large: q ? geometric(1.1, 1e4, 8) : geometric(1.1, 1e4, 60),
    fig4: q ? [1.5, 2, 3, 5] : range(1.1, 5, 0.1),
  };
  const total =
    (figures.has(1) ? ds.length * 8 + ds.length * 2 : 0) +
    (figures.has(2) ? ds.length : 0) +
    (figures.has(3) ? ds.length : 0) +
    (figures.has(4) ? ds.length * 2 : 0);
  let done = 0;
  mkdirSync(o.out, { recursive: true });
  const files: string[] = [];
  const c: Context = {
    ds,
    grid,
    out: o.out,
    files,
    tick: (label) => () => o.onProgress?.(++done, total, label),
    emit: async (name, rows, spec) => {
      await writeTextAtomically(join(o.out, `${name}.csv`), '--out', toCsv(rows));
      const svg = await toSvg(spec);
      await writeTextAtomically(join(o.out, `${name}.svg`), '--out', svg);
      await writeTextAtomically(join(o.out, `${name}.png`), '--out', toPng(svg));
      files.push(`${name}.csv`, `${name}.svg`, `${name}.png`);
    },
    report: [
      '# Reproduction report',
      '',
      `Data: ${o.dataDir ? `UCI files in \`${o.dataDir}\`` : 'the counts embedded in the package (recomputed from the UCI files by the tests)'}; grid: ${q ? 'quick (coarse)' : 'full'}.`,
      'Every scale is `pufferfish calibrate` for the same settings; the CSV files hold the numbers.',
      '',
    ],
    fmt: (x) => (x === 0 ? '0' : Number(x.toPrecision(4)).toString()),
  };
  for (const [n, figure] of [figure1, figure2, figure3, figure4].entries()) if (figures.has(n + 1)) await figure(c);
  await writeTextAtomically(join(o.out, 'REPORT.md'), '--out', c.report.join('\n'));
  files.push('REPORT.md');
  return { files, source: o.dataDir ? `UCI files in ${o.dataDir}` : 'embedded counts' };
}

/** What every figure writes with: the datasets, the grids, the writer of its files and its report lines. */
interface Context {
  ds: Dataset[];
  grid: { alpha: number[]; epsilon: number[]; large: number[]; fig4: number[] };
  out: string;
  files: string[];
  tick: (label: string) => () => void;
  emit: (name: string, rows: Row[], spec: VegaLiteSpec) => Promise<void>;
  report: string[];
  fmt: (x: number) => string;
}

/** Figure 1: Theorems 1 and 2 against Cor. 3.1, their scales and variances. */
async function figure1(c: Context): Promise<void> {
  const rows = fig1Scales(c.ds, c.grid.alpha, [0.5, 1], c.tick('Figure 1 scales'));
  await c.emit(
    'fig1-scales',
    rows,
    scaleVsAlphaChart(rows, {
      title: 'Figure 1 (rows 1–3): noise scale against α',
      subtitle: 'Theorem 1 (Laplace b) and Theorem 2 (Gaussian σ) vs Pierquin et al. Cor. 3.1; ε = 0.5 and 1',
    }),
  );
  const va = fig1Variance(
    c.ds,
    c.grid.alpha.map((alpha) => ({ alpha, epsilon: 0.1 })),
    c.tick('Figure 1 variance vs α'),
  );
  await c.emit(
    'fig1-variance-alpha',
    va,
    varianceChart(va, { title: 'Figure 1 (row 4): noise variance against α, ε = 0.1', x: 'alpha', xTitle: 'Rényi order α' }),
  );
  const ve = fig1Variance(
    c.ds,
    c.grid.epsilon.map((epsilon) => ({ alpha: 1.5, epsilon })),
    c.tick('Figure 1 variance vs ε'),
  );
  await c.emit(
    'fig1-variance-epsilon',
    ve,
    varianceChart(ve, { title: 'Figure 1 (row 5): noise variance against ε, α = 1.5', x: 'epsilon', xTitle: 'privacy budget ε' }),
  );
  const at = (d: string, mech: string, key: string, a: number, e: number) =>
    Number(rows.find((r) => r.dataset === d && r.mechanism === mech && r.methodKey === key && r.alpha === a && r.epsilon === e)?.scale);
  const a0 = c.grid.alpha.includes(2) ? 2 : c.grid.alpha[0];
  c.report.push(
    '## Figure 1 — α-Wasserstein mechanisms vs Cor. 3.1',
    '',
    '![Figure 1](fig1-scales.png)',
    '',
    `Scales at α = ${a0}:`,
    '',
    '| dataset | ε | Thm 1 b | Cor 3.1 b | ratio | Thm 2 σ | Cor 3.1 σ | ratio |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (const d of c.ds)
    for (const e of [0.5, 1]) {
      const [t1, p1, t2, p2] = [
        at(d.id, 'laplace', 'theorem', a0, e),
        at(d.id, 'laplace', 'pierquin', a0, e),
        at(d.id, 'gaussian', 'theorem', a0, e),
        at(d.id, 'gaussian', 'pierquin', a0, e),
      ];
      c.report.push(`| ${d.id} | ${e} | ${c.fmt(t1)} | ${c.fmt(p1)} | ${c.fmt(t1 / p1)} | ${c.fmt(t2)} | ${c.fmt(p2)} | ${c.fmt(t2 / p2)} |`);
    }
  c.report.push('', 'Where Theorem 1 is **not** below Cor. 3.1 (α on the grid with b_Thm1 > b_Cor3.1):', '');
  for (const d of c.ds)
    for (const e of [0.5, 1]) {
      const worse = c.grid.alpha.filter((a) => at(d.id, 'laplace', 'theorem', a, e) > at(d.id, 'laplace', 'pierquin', a, e));
      c.report.push(
        `- ${d.id}, ε = ${e}: ${worse.length ? `${worse.length} of ${c.grid.alpha.length} α values, from ${worse[0]} to ${worse[worse.length - 1]}` : 'none'}`,
      );
    }
  const vr = (rowsV: Row[], d: string, pred: (r: Row) => boolean) => {
    const lap = rowsV.find((r) => r.dataset === d && String(r.mechanism).startsWith('Laplace') && pred(r));
    const gau = rowsV.find((r) => r.dataset === d && String(r.mechanism).startsWith('Gaussian') && pred(r));
    return Number(gau?.variance) / Number(lap?.variance);
  };
  c.report.push(
    '',
    '![Figure 1 row 4](fig1-variance-alpha.png)',
    '',
    '![Figure 1 row 5](fig1-variance-epsilon.png)',
    '',
    'Gaussian (Thm 2) variance ÷ Laplace (Thm 1) variance:',
    '',
    `| dataset | α = ${a0}, ε = 0.1 | α = 1.5, ε = 0.5 | α = 1.5, ε = ${c.grid.epsilon[c.grid.epsilon.length - 1]} |`,
    '|---|---|---|---|',
  );
  for (const d of c.ds)
    c.report.push(
      `| ${d.id} | ${c.fmt(vr(va, d.id, (r) => r.alpha === a0))} | ${c.fmt(vr(ve, d.id, (r) => r.epsilon === 0.5))} | ${c.fmt(vr(ve, d.id, (r) => r.epsilon === c.grid.epsilon[c.grid.epsilon.length - 1]))} |`,
    );
  c.report.push('');
}

/** Figure 2: W_α against its bound. */
async function figure2(c: Context): Promise<void> {
  const BS = [2, 2.5, 3, 3.5, 4, 5, 6];
  const rows = fig2Walpha(c.ds, BS, c.grid.alpha, 0.5, c.tick('Figure 2'));
  await c.emit('fig2-walpha', rows, walphaChart(rows, 'Figure 2: W_α with distance e^{|z|/b} against its bound, ε = 0.5'));
  c.report.push(
    '## Figure 2 — W_α against its bound',
    '',
    '![Figure 2](fig2-walpha.png)',
    '',
    'Smallest α on the grid from which W_α(b) stays below the bound (Theorem 1 holds for b there):',
    '',
    '| dataset | ' + BS.map((b) => `b = ${b}`).join(' | ') + ' |',
    '|---|' + BS.map(() => '---|').join(''),
  );
  for (const d of c.ds) {
    const from = BS.map((b) => {
      const below = (a: number) => Number(rows.find((r) => r.dataset === d.id && r.b === b && r.alpha === a)?.value) <= Math.exp(((a - 1) * 0.5) / a);
      const i = c.grid.alpha.findIndex((_, k) => c.grid.alpha.slice(k).every(below));
      return i < 0 ? 'never' : String(c.grid.alpha[i]);
    });
    c.report.push(`| ${d.id} | ${from.join(' | ')} |`);
  }
  c.report.push('');
}

/** Figure 3: convergence to the W∞ mechanism at large α. */
async function figure3(c: Context): Promise<void> {
  const { rows, limits } = fig3LargeAlpha(c.ds, c.grid.large, 0.5, c.tick('Figure 3'));
  await c.emit(
    'fig3-large-alpha',
    rows,
    scaleVsAlphaChart(rows, {
      title: 'Figure 3: Laplace b against α up to 10⁴, ε = 0.5',
      subtitle: 'dashed black: the W∞ mechanism limit W∞/ε',
      logX: true,
      limit: limits,
    }),
  );
  await writeTextAtomically(join(c.out, 'fig3-limits.csv'), '--out', toCsv(limits));
  c.files.push('fig3-limits.csv');
  const last = c.grid.large[c.grid.large.length - 1];
  c.report.push(
    '## Figure 3 — convergence to the W∞ mechanism',
    '',
    '![Figure 3](fig3-large-alpha.png)',
    '',
    `| dataset | W∞/ε | Thm 1 b at α = ${last} | Cor 3.1 b at α = ${last} |`,
    '|---|---|---|---|',
  );
  for (const l of limits) {
    const pick = (k: string) => Number(rows.find((r) => r.dataset === l.dataset && r.methodKey === k && r.alpha === last)?.scale);
    c.report.push(`| ${l.dataset} | ${c.fmt(Number(l.limit))} | ${c.fmt(pick('theorem'))} | ${c.fmt(pick('pierquin'))} |`);
  }
  c.report.push('');
}

/** Figure 4: every method, and the variance exact accounting saves. */
async function figure4(c: Context): Promise<void> {
  const { rows, saved } = fig4Methods(c.ds, c.grid.fig4, 0.5, c.tick('Figure 4'));
  await c.emit(
    'fig4-methods',
    rows,
    scaleVsAlphaChart(rows, {
      title: 'Figure 4: every method, ε = 0.5',
      subtitle: 'W∞ (Song), Cor. 3.1, Theorem 1/2, the coupled bound and the exact accountant',
    }),
  );
  await c.emit('fig4-saved', saved, savedChart(saved, 'Figure 4b: noise variance saved by exact accounting, ε = 0.5'));
  c.report.push(
    '## Figure 4 — what exact accounting saves',
    '',
    '![Figure 4](fig4-methods.png)',
    '',
    '![Figure 4b](fig4-saved.png)',
    '',
    'exact variance ÷ Theorem 1/2 variance:',
    '',
    `| dataset | mechanism | ${c.grid.fig4
      .filter((a) => [1.5, 2, 3, 5].includes(a))
      .map((a) => `α = ${a}`)
      .join(' | ')} |`,
    `|---|---|${c.grid.fig4
      .filter((a) => [1.5, 2, 3, 5].includes(a))
      .map(() => '---|')
      .join('')}`,
  );
  for (const d of c.ds)
    for (const m of ['laplace', 'gaussian']) {
      c.report.push(
        `| ${d.id} | ${m} | ${c.grid.fig4
          .filter((a) => [1.5, 2, 3, 5].includes(a))
          .map((a) => c.fmt(Number(saved.find((r) => r.dataset === d.id && r.mechanism === m && r.alpha === a)?.ratio)))
          .join(' | ')} |`,
      );
    }
  c.report.push('');
}
