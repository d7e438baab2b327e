#!/usr/bin/env node
import { Presets, SingleBar } from 'cli-progress';
import { Command, CommanderError, Option } from 'commander';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { basename } from 'node:path';
import { writeFileSync } from 'node:fs';
import type { TableSource } from '../sources/table.js';
import { calibrate, MECHANISMS, METHODS, type CalibrationResult, type CalibrationSettings } from '../calibrate/calibrate.js';
import type { Scenario } from '../calibrate/scenario.js';
import { costs } from '../conditions/costs.js';
import { InputError } from '../errors.js';
import { BUILTIN_IDS, builtinScenario } from '../scenarios/builtin.js';
import { uciScenario } from '../scenarios/uciFiles.js';
import { availableDir, cacheDir, DATASETS, dataset, fetchDataset, SCENARIO_DATASET } from '../datasets/registry.js';
import { UCI_SCENARIOS } from '../scenarios/uci.js';
import { loadSpecFile, type SpecDefaults } from '../spec/load.js';
import { parseGrid, parseNames } from './grid.js';
import { auditTable, jsonAlpha, resultJson, resultsTable } from './format.js';
import { audit, auditEmpirical, auditMI } from '../audit/audit.js';
import { release } from '../release/release.js';

interface SourceOptions {
  data?: string;
  query?: string;
  secretColumn?: string;
  values?: string;
  secret?: string[];
  pairs?: string;
  given?: string;
  prior?: string;
  seed?: string;
  header?: boolean;
  separator?: string;
  columns?: string;
  table?: string;
  sql?: string;
  specOut?: string;
}

interface CalibrateOptions extends SourceOptions {
  spec?: string;
  scenario?: string;
  guarantee?: string;
  mechanism?: string;
  method?: string;
  alpha?: string;
  epsilon?: string;
  cost?: string;
  json?: boolean;
}

interface SourceInfo {
  rows: number;
  dropped: number;
  priors: number;
  skippedGiven: string[];
}

/** The scenario of `--spec`, `--scenario` or `--data`, with the spec's defaults. */
async function loadScenario(o: CalibrateOptions): Promise<{ scenario: Scenario; d: SpecDefaults; source?: SourceInfo }> {
  const given = [o.spec && '--spec', o.scenario && '--scenario', o.data && '--data'].filter(Boolean);
  if (given.length > 1) throw new InputError(`give one of --spec, --scenario, --data (got ${given.join(' and ')})`, String(given[1]));
  if (given.length === 0) throw new InputError(`give --spec FILE, --scenario NAME (${BUILTIN_IDS.join(', ')}) or --data FILE --query COL`, '--spec');
  if (o.spec) {
    const { scenario, defaults } = loadSpecFile(o.spec);
    return { scenario, d: defaults };
  }
  if (o.scenario) {
    // The UCI files when a verified copy is at hand ($PUFFERFISH_DATA_DIR or the cache), else the embedded counts.
    builtinScenario(o.scenario); // validates the name
    const dir = availableDir(SCENARIO_DATASET[o.scenario]);
    return { scenario: uciScenario(o.scenario, dir ?? undefined), d: {} };
  }
  if (!o.query) throw new InputError('is required with --data (the numeric column to release)', '--query');
  // DuckDB and pg load only when a table is read.
  const [{ canonical, tableHistograms }, { parsePriorClass, tableScenario }, { sourceKind }, { uciQuirks }] = await Promise.all([
    import('../sources/histograms.js'), import('../sources/priors.js'), import('../sources/table.js'), import('../sources/uciFormats.js'),
  ]);
  const kind = sourceKind(o.data!);
  const quirks = kind === 'csv' ? uciQuirks(o.data!) : {};
  const source: TableSource = {
    kind,
    location: o.data!,
    ...quirks,
    ...(o.header !== undefined ? { header: o.header } : {}),
    ...(o.separator !== undefined ? { separator: o.separator.replace(/\\t/g, '\t') } : {}),
    ...(o.columns ? { columns: o.columns.split(',').map((c) => c.trim()) } : {}),
    table: o.table,
    sql: o.sql,
  };
  const predicates = o.secret?.length ? Object.fromEntries(o.secret.map((t) => {
    const i = t.indexOf('=');
    if (i <= 0) throw new InputError(`must be NAME=PREDICATE, got '${t}'`, '--secret');
    return [t.slice(0, i).trim(), t.slice(i + 1)];
  })) : undefined;
  const values = o.values?.split(',').map((v) => canonical(v)!);
  const hist = await tableHistograms(source, { query: o.query, secretColumn: o.secretColumn, values, predicates, given: o.given });
  const pairs = o.pairs?.split(',').map((p) => {
    const [a, b, extra] = p.split(':').map((x) => canonical(x) ?? '');
    if (!a || !b || extra !== undefined) throw new InputError(`must be A:B[,C:D…], got '${p}'`, '--pairs');
    for (const x of [a, b]) if (!hist.secrets.includes(x)) throw new InputError(`unknown secret '${x}' (secrets: ${hist.secrets.join(', ')})`, '--pairs');
    return [a, b] as [string, string];
  });
  const seed = o.seed === undefined ? 0 : Number(o.seed);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new InputError(`must be a whole number ≥ 0, got '${o.seed}'`, '--seed');
  const prior = o.prior ? parsePriorClass(o.prior, seed) : undefined;
  const name = `${basename(o.data!)}: ${o.query} by ${o.secretColumn ?? 'predicates'}${o.given ? ` given ${o.given}` : ''}`;
  const t = tableScenario(hist, { name, prior, pairs, given: o.given });
  if (o.specOut) {
    // The run's settings travel with the data: single-valued flags (or the defaults) become spec fields.
    const one = (text: string | undefined, flag: string, fallback: number, inf = false) => {
      const v = text ? parseGrid(text, flag, inf) : [fallback];
      return v.length === 1 ? v[0] : undefined;
    };
    const alpha = one(o.alpha, 'alpha', 2, true);
    const settings = {
      mechanism: o.mechanism ?? 'laplace',
      ...(o.method && !o.method.includes(',') ? { method: o.method } : {}),
      ...(alpha !== undefined ? { alpha: alpha === Infinity ? 'inf' : alpha } : {}),
      ...(one(o.epsilon, 'epsilon', 1) !== undefined ? { epsilon: one(o.epsilon, 'epsilon', 1) } : {}),
      ...(o.cost ? { cost: o.cost } : {}),
    };
    writeFileSync(o.specOut, JSON.stringify({ ...specOf(t.scenario), ...settings }, null, 2) + '\n');
  }
  return { scenario: t.scenario, d: {}, source: { rows: hist.rows, dropped: hist.dropped, priors: t.scenario.priors.length, skippedGiven: t.skippedGiven } };
}

/** A scenario as a JSON spec (counts where exact integers, weights otherwise). */
function specOf(s: Scenario) {
  return {
    name: s.name,
    priors: s.priors.map((p) => ({
      name: p.name,
      conditionals: Object.fromEntries(Object.entries(p.conditionals).map(([k, d]) => [k, {
        ...(d.denominator <= BigInt(Number.MAX_SAFE_INTEGER) ? { values: [...d.values], counts: d.numerators.map(Number) } : { values: [...d.values], weights: [...d.masses] }),
        ...(p.probabilities ? { probability: p.probabilities[k] } : {}),
      }])),
    })),
    ...(s.pairs ? { pairs: s.pairs } : {}),
  };
}

/** Spread of the per-prior scale across a prior class (each prior's max over its pairs). */
function spread(r: CalibrationResult) {
  const per = new Map<string, number>();
  for (const p of r.pairs) per.set(p.prior, Math.max(per.get(p.prior) ?? 0, p.scale));
  const xs = [...per.values()].sort((a, b) => a - b);
  return { priors: xs.length, min: xs[0], median: xs[Math.floor((xs.length - 1) / 2)], max: xs[xs.length - 1] };
}

/** Loads the scenario and builds the grid method × α × ε of settings (flags override the spec). */
async function plan(o: CalibrateOptions): Promise<{ scenario: Scenario; grid: CalibrationSettings[]; source?: SourceInfo }> {
  const { scenario, d, source } = await loadScenario(o);
  const mechanism = o.mechanism ? parseNames(o.mechanism, 'mechanism', MECHANISMS) : [d.mechanism ?? 'laplace'];
  if (mechanism.length !== 1) throw new InputError('takes one mechanism', '--mechanism');
  const methods = o.method ? parseNames(o.method, 'method', METHODS) : [d.method ?? 'best'];
  const alphas = o.alpha ? parseGrid(o.alpha, 'alpha', true) : [d.alpha ?? 2];
  const epsilons = o.epsilon ? parseGrid(o.epsilon, 'epsilon') : [d.epsilon ?? 1];
  if (d.epsilon === undefined && !o.epsilon && o.spec) throw new InputError('no epsilon in the spec; give "epsilon" or --epsilon', 'spec.epsilon');
  if (d.alpha === undefined && !o.alpha && o.spec) throw new InputError('no alpha in the spec; give "alpha" or --alpha', 'spec.alpha');
  const cost = o.cost ? costs[parseNames(o.cost, 'cost', Object.keys(costs))[0]] : d.cost;
  const grid = methods.flatMap((method) =>
    alphas.flatMap((alpha) => epsilons.map((epsilon) => ({ mechanism: mechanism[0], method, alpha, epsilon, cost, eta: d.eta }))),
  );
  return { scenario, grid, source };
}

async function runCalibrate(o: CalibrateOptions): Promise<void> {
  const guarantee = o.guarantee ?? 'renyi';
  if (guarantee !== 'renyi' && guarantee !== 'mi') throw new InputError(`must be renyi or mi, got '${o.guarantee}'`, '--guarantee');
  if (guarantee === 'mi') return runCalibrateMI(o);
  const { scenario, grid, source } = await plan(o);
  const results: CalibrationResult[] = grid.map((s) => {
    try {
      return calibrate(scenario, s);
    } catch (e) {
      // Name where the bad setting came from: the flag if given, else the spec field.
      if (e instanceof InputError && e.path && ['alpha', 'epsilon', 'method', 'mechanism'].includes(e.path)) {
        const fromFlag = o[e.path as keyof CalibrateOptions] !== undefined;
        throw new InputError(e.reason, fromFlag ? `--${e.path}` : o.spec ? `spec.${e.path}` : e.path);
      }
      throw e;
    }
  });
  const many = scenario.priors.length > 1;
  if (o.json) {
    process.stdout.write(JSON.stringify({ scenario: scenario.name, ...(source ? { source } : {}), results: results.map((r) => ({ ...resultJson(r), ...(many ? { spread: spread(r) } : {}) })) }, null, 2) + '\n');
    return;
  }
  const srcLine = source ? `\n${source.rows} rows, ${source.dropped} dropped (missing query, secret or public value); ${source.priors} prior(s)${source.skippedGiven.length ? `; public values without every secret, left out: ${source.skippedGiven.join(', ')}` : ''}` : '';
  process.stdout.write(`${scenario.name}${srcLine}\n\n${resultsTable(results)}\n`);
  if (many) for (const r of results) { const sp = spread(r); process.stdout.write(`\nspread over ${sp.priors} priors (${r.method}, α=${r.alpha === Infinity ? '∞' : r.alpha}, ε=${r.epsilon}): min ${sp.min}, median ${sp.median}, max ${sp.max}`); }
  const explained = new Set(results.map((r) => r.explanation.replace(/^[^:]*: /, '')));
  if (results.length <= 4) for (const r of results) process.stdout.write(`\n${r.method} (α=${r.alpha === Infinity ? '∞' : r.alpha}, ε=${r.epsilon}): ${r.explanation}`);
  else if (explained.size === 1) process.stdout.write(`\n${results[0].explanation}`);
  process.stdout.write('\n');
}

interface AuditOptions extends CalibrateOptions {
  scale?: string;
  delta?: string;
  empirical?: boolean;
  samples?: string;
  level?: string;
}

async function runAudit(o: AuditOptions): Promise<void> {
  const { scenario, d } = await loadScenario(o);
  if (o.scale === undefined) throw new InputError('is required (the noise scale to audit: Laplace b, Gaussian σ, exponential θ)', '--scale');
  const scale = Number(o.scale);
  if (o.scale.trim() === '' || !(scale > 0) || !Number.isFinite(scale)) throw new InputError(`must be a finite number > 0, got '${o.scale}'`, '--scale');
  const delta = o.delta === undefined ? 1e-6 : Number(o.delta);
  if (!(delta > 0 && delta < 1)) throw new InputError(`must be a number in (0, 1), got '${o.delta}'`, '--delta');
  const mechanism = o.mechanism ? parseNames(o.mechanism, 'mechanism', MECHANISMS)[0] : (d.mechanism ?? 'laplace');
  const alphas = o.alpha ? parseGrid(o.alpha, 'alpha', true) : [d.alpha ?? 2];
  const epsilons = o.epsilon ? parseGrid(o.epsilon, 'epsilon') : [d.epsilon ?? 1];
  if (epsilons.length !== 1) throw new InputError('takes one value for audit', '--epsilon');
  const cost = o.cost ? costs[parseNames(o.cost, 'cost', Object.keys(costs))[0]] : d.cost;
  let rows;
  try {
    rows = audit(scenario, { mechanism, scale, alphas, epsilon: epsilons[0], delta, cost, eta: d.eta });
  } catch (e) {
    throw e instanceof InputError && e.path && !e.path.startsWith('-') ? new InputError(e.reason, `--${e.path}`) : e;
  }
  const canMI = mechanism !== 'exponential' || (cost ?? costs.abs) === costs.abs;
  const mi = canMI ? await auditMI(scenario, { mechanism, scale, cost, eta: d.eta }) : [];
  let empirical: Awaited<ReturnType<typeof auditEmpirical>> = [];
  if (o.empirical) {
    if (alphas.length !== 1) throw new InputError('the empirical audit tests one claimed α', '--alpha');
    const samples = o.samples === undefined ? 50_000 : Number(o.samples);
    const level = o.level === undefined ? 1e-3 : Number(o.level);
    if (!Number.isSafeInteger(samples) || samples < 100) throw new InputError(`must be a whole number ≥ 100, got '${o.samples}'`, '--samples');
    if (!(level > 0 && level < 1)) throw new InputError(`must be in (0, 1), got '${o.level}'`, '--level');
    empirical = await auditEmpirical(scenario, { mechanism, scale, alphas, alpha: alphas[0], epsilon: epsilons[0], delta, cost, eta: d.eta, samples, level });
  }
  if (o.json) {
    const out = { scenario: scenario.name, mechanism, scale, epsilon: epsilons[0], delta, rows: rows.map((r) => ({ ...r, alpha: jsonAlpha(r.alpha) })), mi, ...(o.empirical ? { empirical } : {}) };
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
    return;
  }
  process.stdout.write(`${scenario.name}\n${mechanism} noise, scale ${scale}; slack to ε = ${epsilons[0]}; (ε′, δ) at δ = ${delta}\n\n${auditTable(rows)}\n`);
  if (mi.length) {
    process.stdout.write(`\nmutual information I(Y; S) (secrets weighted by their probabilities):\n`);
    for (const m of mi) process.stdout.write(`  ${m.prior}: ${m.nats.toPrecision(6)} nats = ${m.bits.toPrecision(6)} bits (± ${m.error.toExponential(1)})${m.impliedByPufferfish !== null ? `; the exact ε-PP level implies ≤ ${m.impliedByPufferfish.toPrecision(6)} nats` : ''}\n`);
  }
  for (const e of empirical) {
    const r = e.result;
    process.stdout.write(`\nempirical audit, ${e.prior}: ${e.pair.join(' vs ')} (${r.samples} draws per secret, false-alarm level ${r.level}): ε at δ = ${r.delta} is at least ${r.lowerBound.toPrecision(4)}; the claim implies ≤ ${r.claimed.toPrecision(4)} → ${r.verdict}\n`);
  }
}

interface ReleaseOptions extends CalibrateOptions {
  out?: string;
  value?: string;
  count?: string;
  truncate?: string;
}

async function runRelease(o: ReleaseOptions): Promise<void> {
  if (o.out) return runReleaseTable(o);
  if (o.value === undefined) throw new InputError('is required (the true value to privatize), or --data … --out FILE for a whole column', '--value');
  const value = Number(o.value);
  if (o.value.trim() === '' || !Number.isFinite(value)) throw new InputError(`must be a finite number, got '${o.value}'`, '--value');
  const count = o.count === undefined ? 1 : Number(o.count);
  if (!Number.isSafeInteger(count) || count < 1 || count > 1_000_000) throw new InputError(`must be a whole number from 1 to 1000000, got '${o.count}'`, '--count');
  let truncate: [number, number] | undefined;
  if (o.truncate !== undefined) {
    const parts = o.truncate.split(',').map((t) => t.trim());
    const nums = parts.map((t) => (/^-inf(inity)?$/i.test(t) ? -Infinity : /^\+?inf(inity)?$/i.test(t) ? Infinity : t === '' ? NaN : Number(t)));
    if (parts.length !== 2 || nums.some(Number.isNaN) || !(nums[0] < nums[1])) throw new InputError(`must be LO,HI with LO < HI (inf allowed), got '${o.truncate}'`, '--truncate');
    truncate = [nums[0], nums[1]];
  }
  const { scenario, grid } = await plan(o);
  if (grid.length !== 1) throw new InputError('release takes one method, α and ε', grid.length > 1 ? '--alpha' : '--method');
  let r;
  try {
    r = release(scenario, grid[0], value, { count, truncate });
  } catch (e) {
    if (e instanceof InputError && e.path && ['alpha', 'epsilon', 'method', 'mechanism', 'truncate', 'cost'].includes(e.path)) {
      throw new InputError(e.reason, `--${e.path}`);
    }
    throw e;
  }
  if (o.json) {
    const { calibration: _c, ...rest } = r;
    process.stdout.write(JSON.stringify({ scenario: scenario.name, ...rest, alpha: jsonAlpha(r.alpha), truncate: r.truncate?.map((x) => (Number.isFinite(x) ? x : x > 0 ? 'inf' : '-inf')) ?? null }, null, 2) + '\n');
    return;
  }
  const sym = { b: 'b', sigma: 'σ', theta: 'θ' }[r.parameter];
  process.stdout.write(`${scenario.name}\n${r.mechanism} noise, ${sym} = ${r.scale} (method ${r.method})${r.truncate ? `, truncated to [${r.truncate.join(', ')}]` : ''}\nguarantee: ${r.guarantee}\n\n`);
  for (const v of r.values) process.stdout.write(`${v}\n`);
}

interface ReproduceCliOptions {
  out: string;
  quick?: boolean;
  figure?: string[];
  dataDir?: string;
  json?: boolean;
}

async function runReproduce(o: ReproduceCliOptions): Promise<void> {
  const figures = o.figure?.flatMap((f) => f.split(',')).map((f) => {
    const n = Number(f.trim());
    if (![1, 2, 3, 4].includes(n)) throw new InputError(`unknown figure '${f}' (1, 2, 3 or 4)`, '--figure');
    return n;
  });
  if (o.dataDir && !existsSync(o.dataDir)) throw new InputError(`folder '${o.dataDir}' does not exist`, '--data-dir');
  const bar = process.stderr.isTTY && !o.json ? new SingleBar({ format: 'reproduce [{bar}] {value}/{total} {label}', hideCursor: true }, Presets.shades_classic) : null;
  let started = false;
  const { reproduce } = await import('../reproduce/reproduce.js');
  const r = await reproduce({
    out: o.out, quick: o.quick, figures, dataDir: o.dataDir,
    onProgress: (done, total, label) => {
      if (!bar) return;
      if (!started) { bar.start(total, 0, { label }); started = true; }
      bar.update(done, { label });
    },
  });
  bar?.stop();
  if (o.json) process.stdout.write(JSON.stringify({ out: o.out, source: r.source, files: r.files }, null, 2) + '\n');
  else process.stdout.write(`wrote ${r.files.length} files to ${o.out} (data: ${r.source}); see ${join(o.out, 'REPORT.md')}\n`);
}

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** The table-source options shared by calibrate, audit and release. */
function withSourceOptions(c: Command): Command {
  return c
    .option('--data <file|url>', 'table: CSV/TSV, Parquet, JSON lines (DuckDB) or postgres://… (PostgreSQL)')
    .option('--query <col>', 'with --data: the numeric column to release')
    .option('--secret-column <col>', 'with --data: each value of this column is a secret')
    .option('--values <a,b,…>', 'with --secret-column: only these values')
    .option('--secret <name=predicate>', 'with --data: a secret as an SQL predicate, e.g. "older=age >= 50" (repeat)', collect)
    .option('--pairs <a:b,…>', 'secret pairs to protect (default: every unordered pair)')
    .option('--given <col>', 'public column: split every pair by its value, take the maximum, name the binding one')
    .option('--prior <class>', 'empirical (default) | bootstrap:N | dirichlet:N[:CONCENTRATION]')
    .option('--seed <n>', 'seed of the prior class draws (reproducible)', '0')
    .option('--header', 'CSV has a header row')
    .option('--no-header', 'CSV has no header row')
    .option('--separator <s>', 'CSV separator (\\t for tab)')
    .option('--columns <a,b,…>', 'column names for a CSV without header')
    .option('--table <t>', 'PostgreSQL table')
    .option('--sql <select>', 'PostgreSQL query instead of --table')
    .option('--spec-out <file>', 'write the derived scenario as a JSON spec (reproducible without the data)');
}

/** `release --data T --query C --out F`: a privatized copy of the table. */
async function runReleaseTable(o: ReleaseOptions): Promise<void> {
  if (!o.data || !o.query) throw new InputError('needs --data FILE --query COL (the column to privatize)', '--out');
  if (o.value !== undefined) throw new InputError('give --value or --out, not both', '--out');
  const { scenario, grid } = await plan(o);
  if (grid.length !== 1) throw new InputError('release takes one method, α and ε', '--alpha');
  const { privatizeTable } = await import('../release/table.js');
  const { sourceKind } = await import('../sources/table.js');
  const { uciQuirks } = await import('../sources/uciFormats.js');
  const kind = sourceKind(o.data);
  const source = { kind, location: o.data, ...(kind === 'csv' ? uciQuirks(o.data) : {}), ...(o.header !== undefined ? { header: o.header } : {}), ...(o.separator ? { separator: o.separator } : {}), ...(o.columns ? { columns: o.columns.split(',') } : {}) };
  const r = await privatizeTable(source, o.query, scenario, grid[0], o.out!);
  const info = { out: o.out, rows: r.rows, missing: r.missing, mechanism: r.mechanism, method: r.method, parameter: r.parameter, scale: r.scale, guarantee: r.guarantee };
  if (o.json) process.stdout.write(JSON.stringify(info, null, 2) + '\n');
  else process.stdout.write(`wrote ${o.out}: column '${o.query}' privatized in ${r.rows} rows (${r.missing} missing left missing); ${r.mechanism} ${r.parameter} = ${r.scale} (method ${r.method})\nguarantee: ${r.guarantee}\n`);
}

/** `calibrate --guarantee mi`: ε-mutual-information Pufferfish (seed 002). */
async function runCalibrateMI(o: CalibrateOptions): Promise<void> {
  const { scenario, d, source } = await loadScenario(o);
  const { calibrateMI, MI_METHODS } = await import('../mi/calibrateMI.js');
  const mechanism = o.mechanism ? parseNames(o.mechanism, 'mechanism', MECHANISMS)[0] : (d.mechanism ?? 'laplace');
  const methods = o.method ? parseNames(o.method, 'method', MI_METHODS) : [d.method && (MI_METHODS as readonly string[]).includes(d.method) ? (d.method as (typeof MI_METHODS)[number]) : 'best'];
  const epsilons = o.epsilon ? parseGrid(o.epsilon, 'epsilon') : [d.epsilon ?? 1];
  const results = methods.flatMap((method) => epsilons.map((epsilon) => {
    try {
      return calibrateMI(scenario, { mechanism, method, epsilon });
    } catch (e) {
      throw e instanceof InputError && e.path && !e.path.startsWith('-') ? new InputError(e.reason, `--${e.path}`) : e;
    }
  }));
  if (o.json) {
    process.stdout.write(JSON.stringify({ scenario: scenario.name, guarantee: 'mi', ...(source ? { source } : {}), results: results.map((r) => ({ ...r, guarantee: 'mi', alpha: null })) }, null, 2) + '\n');
    return;
  }
  process.stdout.write(`${scenario.name}\nguarantee: I(Y; S) ≤ ε nats (ε-MI Pufferfish)\n\n${resultsTable(results)}\n`);
  for (const r of results) process.stdout.write(`\n${r.method} (ε=${r.epsilon}): ${r.explanation}`);
  process.stdout.write('\n');
}

export function buildProgram(): Command {
  const program = new Command('pufferfish')
    .description(
      'Rényi Pufferfish privacy for correlated data: calibrate Laplace, Gaussian and exponential-mechanism noise\n' +
        'by the α-Wasserstein mechanisms of Ding, Yang, Zhang (arXiv 2605.05723) and their W∞ baselines.',
    )
    .version('0.1.0');

  withSourceOptions(program
    .command('calibrate'))
    .description('Smallest noise scale meeting (α, ε)-Rényi Pufferfish privacy for every prior and secret pair.')
    .option('--spec <file>', 'scenario spec (JSON): priors, conditionals, pairs, mechanism, alpha, epsilon, method')
    .addOption(new Option('--scenario <name>', 'built-in scenario of the paper').choices(BUILTIN_IDS))
    .option('--mechanism <m>', `noise: ${MECHANISMS.join(' | ')} (default: spec, else laplace)`)
    .option('--method <list>', `comma list of ${METHODS.join(', ')} (default: spec, else best)`)
    .option('--alpha <grid>', 'Rényi order(s): A | A,B,… | FROM:TO:STEP; "inf" for ε-Pufferfish (default: spec, else 2)')
    .option('--epsilon <grid>', 'budget(s): E | E,F,… | FROM:TO:STEP (default: spec, else 1)')
    .option('--cost <c>', `exponential mechanism cost c(z): ${Object.keys(costs).join(' | ')} (default abs)`)
    .option('--guarantee <g>', 'renyi (default): (α, ε)-Rényi Pufferfish; mi: I(Y; S) ≤ ε nats, methods mi-exact | mi-variance | best')
    .option('--json', 'print {"results": [...]} as JSON')
    .addHelpText(
      'after',
      `
Methods (MATH.md §3):
  theorem          Laplace α∈(1,∞): Theorem 1 · α=∞: Remark 1 (W∞/ε) · α∈(0,1): Proposition 1
                   Gaussian α∈(1,∞): Theorem 2 (Remark 2 for point masses) · exponential: Corollary 1
  pierquin         Pierquin et al. 2024 Cor. 3.1: Laplace R_α(W∞/b) ≤ ε; Gaussian σ = W∞·√(α/(2ε))
  wasserstein-inf  Song et al. 2017: b = W∞/ε (valid for every α); exponential θ = η⁻¹(ε / sup c)
  coupled          joint-convexity bound (MATH.md §4): log E_π* exp((α−1)·D_α(N+x‖N+x′)) ≤ (α−1)ε;
                   Laplace: Mironov's R_α per coupled pair; Gaussian: equals Theorem 2
  exact            smallest scale whose exact D_α of the released outputs (+ its error bound) ≤ ε,
                   every prior, pair and direction; 0 when the data alone meets ε (data processing)
  best             the smallest of every method that applies, naming the winner (default)

Built-in scenarios:
${UCI_SCENARIOS.map((d) => `  ${d.id.padEnd(12)} ${d.title}`).join('\n')}

Examples:
  pufferfish calibrate --scenario adult
  pufferfish calibrate --scenario heart --alpha 1.5:5:0.5 --epsilon 0.5,1 --method theorem,pierquin --json
  pufferfish calibrate --spec my-spec.json --mechanism gaussian --alpha 2,4,8
  pufferfish calibrate --data adult.data --query education-num --secret-column relationship --values Husband,Not-in-family
  pufferfish calibrate --data people.parquet --query income --secret "older=age >= 50" --secret "younger=age < 50" --given sex

Exit codes: 0 ok · 2 bad input (the message names the field) · 3 numerical failure (no number is printed).`,
    )
    .action((o: CalibrateOptions) => runCalibrate(o));

  withSourceOptions(program
    .command('audit'))
    .description('Exact Rényi divergence of the released outputs at a given noise scale, per prior, pair and direction.')
    .option('--spec <file>', 'scenario spec (JSON)')
    .addOption(new Option('--scenario <name>', 'built-in scenario of the paper').choices(BUILTIN_IDS))
    .option('--scale <s>', 'noise scale to audit: Laplace b, Gaussian σ, exponential θ (required)')
    .option('--mechanism <m>', `noise: ${MECHANISMS.join(' | ')} (default: spec, else laplace)`)
    .option('--alpha <grid>', 'Rényi order(s): A | A,B,… | FROM:TO:STEP | inf (Laplace) (default: spec, else 2)')
    .option('--epsilon <e>', 'budget the slack is measured against (default: spec, else 1)')
    .option('--delta <d>', 'δ for the (ε′, δ) conversions (default 1e-6)')
    .option('--cost <c>', 'exponential mechanism cost (exact accounting: abs only)')
    .option('--empirical', 'also test the claimed (α, ε) by sampling the real release path (Clopper–Pearson, threshold sets)')
    .option('--samples <n>', 'empirical audit: draws per secret (default 50000)')
    .option('--level <a>', 'empirical audit: false-alarm probability bound (default 1e-3)')
    .option('--json', 'print {"rows": [...], "mi": [...]} as JSON, mirroring the tables')
    .addHelpText(
      'after',
      `
Columns: D_α and its error bound (adaptive Gauss–Kronrod, MATH.md §4); slack = ε − (D_α + error);
ε′ at δ by eq. (5) of the paper, ε′ = D_α + log(1/δ)/(α−1), and by the sharper conversion
ε′ = D_α + log((α−1)/α) − (log δ + log α)/(α−1) (Canonne–Kamath–Steinke 2020, Prop. 12);
ε-PP = the exact ε-Pufferfish level sup log p/q of Laplace-shaped noise.

Example:
  pufferfish audit --scenario heart --scale 0.8 --alpha 1.5,2,4,inf`,
    )
    .action((o: AuditOptions) => runAudit(o));

  withSourceOptions(program
    .command('release'))
    .description('Calibrate, then draw privatized release(s) of a value with floating-point-safe samplers and the platform CSPRNG.')
    .option('--spec <file>', 'scenario spec (JSON)')
    .addOption(new Option('--scenario <name>', 'built-in scenario of the paper').choices(BUILTIN_IDS))
    .option('--value <v>', 'the true value to privatize')
    .option('--out <file>', 'with --data and --query: write a copy of the table with that column privatized row by row (.csv, .parquet, .jsonl)')
    .option('--mechanism <m>', `noise: ${MECHANISMS.join(' | ')} (default: spec, else laplace)`)
    .option('--method <m>', `calibration method (default: spec, else best)`)
    .option('--alpha <a>', 'Rényi order, or "inf" (default: spec, else 2)')
    .option('--epsilon <e>', 'budget (default: spec, else 1)')
    .option('--cost <c>', `exponential mechanism cost: ${Object.keys(costs).join(' | ')}`)
    .option('--count <n>', 'number of independent draws (they compose: each one spends the budget)', '1')
    .option('--truncate <lo,hi>', 'redraw until the output lies in [LO, HI]; calibrated on the truncated outputs (exact accountant)')
    .option('--json', 'print the result as JSON, draws under "values"')
    .addHelpText(
      'after',
      `
Sampling: the output is round-to-nearest(x + Z) for an exact continuous sample Z (Laplace by the
inverse CDF, Gaussian by ratio-of-uniforms, √|z| cost by the Gamma(2) inverse survival), computed
from lazily drawn CSPRNG bits with a rigorous fixed-point logarithm: a post-processing of the exact
mechanism, so the calibration holds for the released doubles (see README, "Releasing values").

Example:
  pufferfish release --scenario heart --value 1.4 --mechanism gaussian --alpha 2 --epsilon 1 --count 3`,
    )
    .action((o: ReleaseOptions) => runRelease(o));

  program
    .command('reproduce')
    .description("Regenerate the paper's Figures 1–3 and Figure 4 (every method) as CSV, SVG, PNG and REPORT.md.")
    .option('--out <dir>', 'output folder', 'reproduction')
    .option('--quick', 'coarse grid that finishes in seconds')
    .option('--figure <n...>', 'only these figures (1 2 3 4)')
    .option('--data-dir <dir>', 'UCI files as shipped (adult/adult.data, heart-disease/…, student/…); default: embedded counts')
    .option('--json', 'print the list of files as JSON (no progress bar)')
    .action((o: ReproduceCliOptions) => runReproduce(o));

  const ds = program.command('datasets').description('The UCI datasets of the paper: list, fetch (SHA-256 checked) and locate them.');
  ds.command('list')
    .description('List the datasets and where a verified copy is.')
    .action(() => {
      for (const d of DATASETS) {
        const at = availableDir(d.name);
        process.stdout.write(`${d.name.padEnd(14)} ${at ? `ready: ${at}` : 'not fetched'}  (${d.page})\n`);
      }
    });
  ds.command('fetch <name>')
    .description(`Download from UCI into the cache (${'$'}PUFFERFISH_CACHE_DIR, default ~/.cache/pufferfish/uci), or copy a local copy with --data-dir.`)
    .option('--data-dir <dir>', 'copy from this folder (laid out like UCI: adult/adult.data, …) instead of downloading')
    .action(async (name: string, o: { dataDir?: string }) => {
      const dir = await fetchDataset(name, { from: o.dataDir });
      process.stdout.write(`${name}: ${dataset(name).files.length} files verified in ${dir}\n`);
    });
  ds.command('path <name>')
    .description('Print the folder holding a verified copy (exit 2 if there is none).')
    .action((name: string) => {
      const d = dataset(name);
      const dir = availableDir(name);
      if (!dir) throw new InputError(`no verified copy of '${name}' (checked ${process.env.PUFFERFISH_DATA_DIR ? `${process.env.PUFFERFISH_DATA_DIR} and ` : ''}${cacheDir()}); run: pufferfish datasets fetch ${name}`, 'dataset');
      process.stdout.write(`${join(dir, d.files[0].path.split('/')[0])}\n`);
    });

  program
    .command('serve')
    .description('Serve the local web calibrator on 127.0.0.1 (the table never leaves the machine).')
    .option('--port <p>', 'port (0 = any free one)', '8737')
    .action(async (o: { port: string }) => {
      const port = Number(o.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InputError(`must be a port number, got '${o.port}'`, '--port');
      const { serveApp } = await import('./serve.js');
      const { url } = await serveApp(port);
      process.stdout.write(`Pufferfish web calibrator: ${url}  (Ctrl-C to stop)\n`);
      await new Promise(() => {}); // serve until interrupted
    });

  program
    .command('scenarios')
    .description('List the built-in scenarios.')
    .action(() => {
      for (const d of UCI_SCENARIOS) process.stdout.write(`${d.id.padEnd(12)} ${d.title}\n`);
    });
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  program.exitOverride();
  const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
  all(program).forEach((c) => c.exitOverride());
  program.configureOutput({ writeErr: (s) => process.stderr.write(s) });
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help' ? 0 : 2;
    }
    if (e instanceof InputError) {
      process.stderr.write(`error: ${e.message}\n`);
      return 2;
    }
    const err = e as Error;
    process.stderr.write(`error: ${err.name === 'NumericalError' ? 'numerical failure' : 'internal error'}: ${err.message}\n`);
    if (process.env.PUFFERFISH_DEBUG) process.stderr.write(`${err.stack}\n`);
    return err.name === 'NumericalError' ? 3 : 1;
  }
}

// A closed pipe (`pufferfish … | head`) is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});
process.exitCode = await main(process.argv);
