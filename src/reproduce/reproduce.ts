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
  const tick = (label: string) => () => o.onProgress?.(++done, total, label);
  mkdirSync(o.out, { recursive: true });
  const files: string[] = [];
  const emit = async (name: string, rows: Row[], spec: VegaLiteSpec) => {
    await writeTextAtomically(join(o.out, `${name}.csv`), '--out', toCsv(rows));
    const svg = await toSvg(spec);
    await writeTextAtomically(join(o.out, `${name}.svg`), '--out', svg);
    await writeTextAtomically(join(o.out, `${name}.png`), '--out', toPng(svg));
    files.push(`${name}.csv`, `${name}.svg`, `${name}.png`);
  };
  const report: string[] = [
    '# Reproduction report',
    '',
    `Data: ${o.dataDir ? `UCI files in \`${o.dataDir}\`` : 'the counts embedded in the package (recomputed from the UCI files by the tests)'}; grid: ${q ? 'quick (coarse)' : 'full'}.`,
    'Every scale is `pufferfish calibrate` for the same settings; the CSV files hold the numbers.',
    '',
  ];
  const source = o.dataDir ? `UCI files in ${o.dataDir}` : 'embedded counts';
  const fmt = (x: number) => (x === 0 ? '0' : Number(x.toPrecision(4)).toString());

  if (figures.has(1)) {
    const rows = fig1Scales(ds, grid.alpha, [0.5, 1], tick('Figure 1 scales'));
    await emit(
      'fig1-scales',
      rows,
      scaleVsAlphaChart(rows, {
        title: 'Figure 1 (rows 1–3): noise scale against α',
        subtitle: 'Theorem 1 (Laplace b) and Theorem 2 (Gaussian σ) vs Pierquin et al. Cor. 3.1; ε = 0.5 and 1',
      }),
    );
    const va = fig1Variance(
      ds,
      grid.alpha.map((alpha) => ({ alpha, epsilon: 0.1 })),
      tick('Figure 1 variance vs α'),
    );
    await emit(
      'fig1-variance-alpha',
      va,
      varianceChart(va, { title: 'Figure 1 (row 4): noise variance against α, ε = 0.1', x: 'alpha', xTitle: 'Rényi order α' }),
    );
    const ve = fig1Variance(
      ds,
      grid.epsilon.map((epsilon) => ({ alpha: 1.5, epsilon })),
      tick('Figure 1 variance vs ε'),
    );
    await emit(
      'fig1-variance-epsilon',
      ve,
      varianceChart(ve, { title: 'Figure 1 (row 5): noise variance against ε, α = 1.5', x: 'epsilon', xTitle: 'privacy budget ε' }),
    );
    const at = (d: string, mech: string, key: string, a: number, e: number) =>
      Number(rows.find((r) => r.dataset === d && r.mechanism === mech && r.methodKey === key && r.alpha === a && r.epsilon === e)?.scale);
    const a0 = grid.alpha.includes(2) ? 2 : grid.alpha[0];
    report.push(
      '## Figure 1 — α-Wasserstein mechanisms vs Cor. 3.1',
      '',
      '![Figure 1](fig1-scales.png)',
      '',
      `Scales at α = ${a0}:`,
      '',
      '| dataset | ε | Thm 1 b | Cor 3.1 b | ratio | Thm 2 σ | Cor 3.1 σ | ratio |',
      '|---|---|---|---|---|---|---|---|',
    );
    for (const d of ds)
      for (const e of [0.5, 1]) {
        const [t1, p1, t2, p2] = [
          at(d.id, 'laplace', 'theorem', a0, e),
          at(d.id, 'laplace', 'pierquin', a0, e),
          at(d.id, 'gaussian', 'theorem', a0, e),
          at(d.id, 'gaussian', 'pierquin', a0, e),
        ];
        report.push(`| ${d.id} | ${e} | ${fmt(t1)} | ${fmt(p1)} | ${fmt(t1 / p1)} | ${fmt(t2)} | ${fmt(p2)} | ${fmt(t2 / p2)} |`);
      }
    report.push('', 'Where Theorem 1 is **not** below Cor. 3.1 (α on the grid with b_Thm1 > b_Cor3.1):', '');
    for (const d of ds)
      for (const e of [0.5, 1]) {
        const worse = grid.alpha.filter((a) => at(d.id, 'laplace', 'theorem', a, e) > at(d.id, 'laplace', 'pierquin', a, e));
        report.push(
          `- ${d.id}, ε = ${e}: ${worse.length ? `${worse.length} of ${grid.alpha.length} α values, from ${worse[0]} to ${worse[worse.length - 1]}` : 'none'}`,
        );
      }
    const vr = (rowsV: Row[], d: string, pred: (r: Row) => boolean) => {
      const lap = rowsV.find((r) => r.dataset === d && String(r.mechanism).startsWith('Laplace') && pred(r));
      const gau = rowsV.find((r) => r.dataset === d && String(r.mechanism).startsWith('Gaussian') && pred(r));
      return Number(gau?.variance) / Number(lap?.variance);
    };
    report.push(
      '',
      '![Figure 1 row 4](fig1-variance-alpha.png)',
      '',
      '![Figure 1 row 5](fig1-variance-epsilon.png)',
      '',
      'Gaussian (Thm 2) variance ÷ Laplace (Thm 1) variance:',
      '',
      `| dataset | α = ${a0}, ε = 0.1 | α = 1.5, ε = 0.5 | α = 1.5, ε = ${grid.epsilon[grid.epsilon.length - 1]} |`,
      '|---|---|---|---|',
    );
    for (const d of ds)
      report.push(
        `| ${d.id} | ${fmt(vr(va, d.id, (r) => r.alpha === a0))} | ${fmt(vr(ve, d.id, (r) => r.epsilon === 0.5))} | ${fmt(vr(ve, d.id, (r) => r.epsilon === grid.epsilon[grid.epsilon.length - 1]))} |`,
      );
    report.push('');
  }
  if (figures.has(2)) {
    const BS = [2, 2.5, 3, 3.5, 4, 5, 6];
    const rows = fig2Walpha(ds, BS, grid.alpha, 0.5, tick('Figure 2'));
    await emit('fig2-walpha', rows, walphaChart(rows, 'Figure 2: W_α with distance e^{|z|/b} against its bound, ε = 0.5'));
    report.push(
      '## Figure 2 — W_α against its bound',
      '',
      '![Figure 2](fig2-walpha.png)',
      '',
      'Smallest α on the grid from which W_α(b) stays below the bound (Theorem 1 holds for b there):',
      '',
      '| dataset | ' + BS.map((b) => `b = ${b}`).join(' | ') + ' |',
      '|---|' + BS.map(() => '---|').join(''),
    );
    for (const d of ds) {
      const from = BS.map((b) => {
        const below = (a: number) => Number(rows.find((r) => r.dataset === d.id && r.b === b && r.alpha === a)?.value) <= Math.exp(((a - 1) * 0.5) / a);
        const i = grid.alpha.findIndex((_, k) => grid.alpha.slice(k).every(below));
        return i < 0 ? 'never' : String(grid.alpha[i]);
      });
      report.push(`| ${d.id} | ${from.join(' | ')} |`);
    }
    report.push('');
  }
  if (figures.has(3)) {
    const { rows, limits } = fig3LargeAlpha(ds, grid.large, 0.5, tick('Figure 3'));
    await emit(
      'fig3-large-alpha',
      rows,
      scaleVsAlphaChart(rows, {
        title: 'Figure 3: Laplace b against α up to 10⁴, ε = 0.5',
        subtitle: 'dashed black: the W∞ mechanism limit W∞/ε',
        logX: true,
        limit: limits,
      }),
    );
    await writeTextAtomically(join(o.out, 'fig3-limits.csv'), '--out', toCsv(limits));
    files.push('fig3-limits.csv');
    const last = grid.large[grid.large.length - 1];
    report.push(
      '## Figure 3 — convergence to the W∞ mechanism',
      '',
      '![Figure 3](fig3-large-alpha.png)',
      '',
      `| dataset | W∞/ε | Thm 1 b at α = ${last} | Cor 3.1 b at α = ${last} |`,
      '|---|---|---|---|',
    );
    for (const l of limits) {
      const pick = (k: string) => Number(rows.find((r) => r.dataset === l.dataset && r.methodKey === k && r.alpha === last)?.scale);
      report.push(`| ${l.dataset} | ${fmt(Number(l.limit))} | ${fmt(pick('theorem'))} | ${fmt(pick('pierquin'))} |`);
    }
    report.push('');
  }
  if (figures.has(4)) {
    const { rows, saved } = fig4Methods(ds, grid.fig4, 0.5, tick('Figure 4'));
    await emit(
      'fig4-methods',
      rows,
      scaleVsAlphaChart(rows, {
        title: 'Figure 4: every method, ε = 0.5',
        subtitle: 'W∞ (Song), Cor. 3.1, Theorem 1/2, the coupled bound and the exact accountant',
      }),
    );
    await emit('fig4-saved', saved, savedChart(saved, 'Figure 4b: noise variance saved by exact accounting, ε = 0.5'));
    report.push(
      '## Figure 4 — what exact accounting saves',
      '',
      '![Figure 4](fig4-methods.png)',
      '',
      '![Figure 4b](fig4-saved.png)',
      '',
      'exact variance ÷ Theorem 1/2 variance:',
      '',
      `| dataset | mechanism | ${grid.fig4
        .filter((a) => [1.5, 2, 3, 5].includes(a))
        .map((a) => `α = ${a}`)
        .join(' | ')} |`,
      `|---|---|${grid.fig4
        .filter((a) => [1.5, 2, 3, 5].includes(a))
        .map(() => '---|')
        .join('')}`,
    );
    for (const d of ds)
      for (const m of ['laplace', 'gaussian']) {
        report.push(
          `| ${d.id} | ${m} | ${grid.fig4
            .filter((a) => [1.5, 2, 3, 5].includes(a))
            .map((a) => fmt(Number(saved.find((r) => r.dataset === d.id && r.mechanism === m && r.alpha === a)?.ratio)))
            .join(' | ')} |`,
        );
      }
    report.push('');
  }
  await writeTextAtomically(join(o.out, 'REPORT.md'), '--out', report.join('\n'));
  files.push('REPORT.md');
  return { files, source };
}
