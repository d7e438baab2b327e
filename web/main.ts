// The page: forms in, results out; all computation happens in the worker (the page stays responsive).
// Every request carries an id; a response is shown only if it answers the latest request of its
// kind, so results always belong to the current inputs, and Cancel restarts the worker.
import { csvFormatRows } from 'd3-dsv';
import { decimalUp, numDown, numUp } from '../src/cli/format.js';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
let fileName = '';
let lastSpec: unknown = null;
type Kind = 'data' | 'values' | 'calibrate' | 'audit' | 'release' | 'spec';
let nextId = 0;
const latest: Partial<Record<Kind, number>> = {};
/** The last data request (file text or built-in), replayed into a restarted worker. */
let dataRequest: Record<string, unknown> | null = null;
let worker = startWorker();
function startWorker(): Worker {
  const w = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
  w.onmessage = onMessage;
  return w;
}
function send(kind: Kind, m: Record<string, unknown>): void {
  const rid = ++nextId;
  latest[kind] = rid;
  worker.postMessage({ ...m, rid, kind });
}
const busy = (on: boolean) => {
  if (on) $('run').setAttribute('aria-busy', 'true');
  else $('run').removeAttribute('aria-busy');
  $('cancel').hidden = !on;
};

// Numbers for humans as the CLI prints them: scales, variances, divergences and ε levels rounded
// up, slack rounded down (the exact values stay in data attributes and the worker).
const fmt = numUp;
/** Four significant digits, rounded up: for sentences. */
const short = (x: number) => String(Number(decimalUp(x, 4)));
const checked = (name: string) => [...document.querySelectorAll<HTMLInputElement>(`input[name=${name}]:checked`)].map((i) => i.value);
// Data (secret values, prior names, column names) reaches the DOM only as text: never as markup.
const el = <K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, attrs: Record<string, string> = {}): HTMLElementTagNameMap[K] => {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
};
const row = (cells: (string | [string, string])[], attrs: Record<string, string> = {}, header = false) => {
  const tr = el('tr', undefined, attrs);
  for (const c of cells) tr.append(Array.isArray(c) ? el(header ? 'th' : 'td', c[0], { class: c[1] }) : el(header ? 'th' : 'td', c));
  return tr;
};
/**
 * A Vega SVG (its labels carry data) parsed as XML, never as HTML, with anything active or
 * style-bearing removed (scripts, foreign objects, style sheets, links, event handlers).
 */
const safeSvg = (text: string): Element => {
  const svg = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
  if (svg.nodeName !== 'svg') return el('p', 'plot unavailable');
  for (const n of svg.querySelectorAll('script, foreignObject, style, a, iframe, image, use, animate, set')) n.remove();
  for (const n of [svg, ...svg.querySelectorAll('*')]) {
    for (const a of [...n.attributes]) if (/^on/i.test(a.name) || /href$/i.test(a.name)) n.removeAttribute(a.name);
  }
  return document.importNode(svg, true);
};
const options = (sel: HTMLSelectElement, values: string[], blank = false) => {
  sel.replaceChildren(...(blank ? [el('option', '—', { value: '' })] : []), ...values.map((v) => el('option', v, { value: v })));
};
const message = (text: string) => ($('message').textContent = text);

/**
 * The results keep their height while they are recomputed: a field's change event fires on the
 * mousedown of a click on Calibrate, and a page that shrank then would scroll the button away
 * from under the pointer before the mouseup (the click lost).
 */
const holdResults = (on: boolean) => {
  const r = document.querySelector<HTMLElement>('section.results')!;
  if (!on) r.style.minHeight = '';
  else if (!r.style.minHeight) r.style.minHeight = `${r.offsetHeight}px`;
};

/** Inputs changed: every result on the page belonged to the old ones, and in-flight answers are dropped. */
function invalidate(): void {
  holdResults(true);
  lastRun = '';
  for (const k of ['calibrate', 'audit', 'release', 'spec'] as Kind[]) latest[k] = ++nextId;
  busy(false);
  $('table').querySelector('tbody')!.replaceChildren();
  $('plot-alpha').replaceChildren();
  $('plot-epsilon').replaceChildren();
  $('plot-numbers').querySelector('tbody')!.replaceChildren();
  $('audit-table').querySelector('tbody')!.replaceChildren();
  $('audit-caption').textContent = '';
  $('released').replaceChildren();
  for (const id of ['results-for', 'audit-message', 'release-message', 'data-used', 'recommendation', 'skipped', 'plot-note']) $(id).textContent = '';
  lastSpec = null;
  lastResults = null;
  lastAudit = null;
  $<HTMLButtonElement>('download-results').disabled = true;
  $<HTMLButtonElement>('download-audit').disabled = true;
  releaseChoices([]);
}

/** The release step's noise list: the recommended method first, then every result row. */
function releaseChoices(rows: { mechanism: string; method: string; label: string; scale: number }[]): void {
  $('release-method').replaceChildren(
    el('option', 'the recommended method', { value: '' }),
    ...rows.map((r) => el('option', `${r.mechanism}, ${r.label} (scale ${fmt(r.scale)})`, { value: `${r.mechanism}:${r.method}` })),
  );
}
/** α as the page prints it. */
const alphaText = (a: unknown) => (a === 'inf' || a === Infinity ? '∞' : String(a));

// What the exports are made of: the shown results and audit, with the inputs they belong to.
type ResultRow = {
  mechanism: string;
  method: string;
  label: string;
  rule: string;
  scale: number;
  halfWidth: number;
  variance: number;
  binding: { prior: string; pair: [string, string] } | null;
  /** With an (ε, δ) target: the Rényi order and budget this row went through. */
  alpha?: number;
  renyiEpsilon?: number;
};
let lastResults: {
  alpha: number | string;
  epsilon: number;
  delta?: number;
  scenario: string;
  rows: ResultRow[];
  recommended: ResultRow | null;
  /** The query columns (several: a vector query). */
  columns: string[];
} | null = null;
let lastAudit: { caption: string; rows: any[]; bound: boolean } | null = null;
/** Column summaries of the loaded table (for the contamination range of the query column). */
let summaries: { name: string; min?: number; max?: number }[] = [];

/** Saves `text` as a file the user downloads (nothing leaves the page otherwise). */
function download(name: string, type: string, text: string): void {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 0);
}
/** A text cell a spreadsheet would run as a formula (=, +, −, @, tab, CR first) is prefixed with '. */
const cellText = (v: string) => (/^[=+\-@\t\r]/.test(v) ? `'${v}` : v);
/** A Markdown table cell: pipes, backslashes and line breaks escaped. */
const mdCell = (v: string) => v.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

async function loadFile(file: File) {
  fileName = file.name;
  $<HTMLSelectElement>('builtin').value = '';
  message('');
  invalidate();
  $<HTMLFieldSetElement>('table-fields').disabled = true;
  for (const id of ['query', 'also-query', 'secret', 'given', 'values', 'values-note']) $(id).replaceChildren();
  $('preview').hidden = true;
  $('data-status').textContent = `reading ${file.name}…`;
  // Parquet by its magic bytes (or name), read in the worker; everything else as delimited text.
  const bytes = await file.arrayBuffer();
  const magic = String.fromCharCode(...new Uint8Array(bytes, 0, Math.min(4, bytes.byteLength)));
  dataRequest =
    magic === 'PAR1' || /\.parquet$/i.test(file.name)
      ? { type: 'load-parquet', name: file.name, bytes }
      : { type: 'load', name: file.name, text: new TextDecoder().decode(bytes) };
  send('data', dataRequest);
}

$<HTMLInputElement>('file').addEventListener('change', (e) => {
  const f = (e.target as HTMLInputElement).files?.[0];
  if (f) void loadFile(f);
});
const drop = $('drop');
drop.addEventListener('dragover', (e) => {
  e.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  const f = e.dataTransfer?.files?.[0];
  if (f) void loadFile(f);
});
$<HTMLSelectElement>('builtin').addEventListener('change', (e) => {
  const id = (e.target as HTMLSelectElement).value;
  if (!id) return;
  message('');
  invalidate();
  dataRequest = { type: 'builtin', id };
  send('data', dataRequest);
});
$<HTMLSelectElement>('secret').addEventListener('change', (e) => {
  invalidate();
  send('values', { type: 'values', column: (e.target as HTMLSelectElement).value });
});
for (const id of ['query', 'given', 'prior', 'contamination', 'domain-lo', 'domain-hi']) $(id).addEventListener('change', invalidate);
$('query').addEventListener('change', fillDomain);
$('query').addEventListener('change', markQueryBox);
$('also-query').addEventListener('change', invalidate);
/** Further query columns (a vector query): every numeric column but the query itself. */
function fillAlso(numeric: string[]): void {
  $('also-query').replaceChildren(
    ...numeric.map((c) => {
      const label = el('label');
      label.append(el('input', undefined, { type: 'checkbox', name: 'also-query', value: c }), ` ${c}`);
      return label;
    }),
  );
  markQueryBox();
}
/** The query column's own box cannot be ticked (a column once per vector). */
function markQueryBox(): void {
  const q = $<HTMLSelectElement>('query').value;
  for (const box of document.querySelectorAll<HTMLInputElement>('input[name=also-query]')) {
    box.disabled = box.value === q;
    if (box.disabled) box.checked = false;
  }
}
/** The contamination range defaults to the query column's observed range. */
function fillDomain(): void {
  const c = summaries.find((x) => x.name === $<HTMLSelectElement>('query').value);
  $<HTMLInputElement>('domain-lo').value = c?.min !== undefined ? String(c.min) : '';
  $<HTMLInputElement>('domain-hi').value = c?.max !== undefined ? String(c.max) : '';
}
$('alpha-inf').addEventListener('change', () => {
  $<HTMLInputElement>('alpha').disabled = $<HTMLInputElement>('alpha-inf').checked || deltaTarget();
  $('alpha').dispatchEvent(new Event('change'));
});
/** An (ε, δ) target: the order α is searched, so its inputs rest; δ is read. */
const deltaTarget = () => $<HTMLInputElement>('target-delta').checked;
$('target-delta').addEventListener('change', () => {
  $<HTMLInputElement>('delta').disabled = !deltaTarget();
  $<HTMLInputElement>('alpha-inf').disabled = deltaTarget();
  $<HTMLInputElement>('alpha').disabled = deltaTarget() || $<HTMLInputElement>('alpha-inf').checked;
  $('delta').dispatchEvent(new Event('change'));
});
$('values').addEventListener('change', invalidate);
for (const name of ['mechanism', 'method']) for (const box of document.querySelectorAll(`input[name=${name}]`)) box.addEventListener('change', invalidate);

const params = () => ({
  fileName,
  query: $<HTMLSelectElement>('query').value,
  // Several columns: one vector query (docs/math.md §12).
  also: checked('also-query'),
  secretColumn: $<HTMLSelectElement>('secret').value,
  values: checked('secret-value'),
  given: $<HTMLSelectElement>('given').value,
  alpha: $<HTMLInputElement>('alpha-inf').checked ? 'inf' : Number($<HTMLInputElement>('alpha').value),
  epsilon: Number($<HTMLInputElement>('epsilon').value),
  // An empty δ field is no value (Number('') would be 0): NaN, refused by the worker by name.
  delta: deltaTarget() ? ($<HTMLInputElement>('delta').value.trim() === '' ? Number.NaN : Number($<HTMLInputElement>('delta').value)) : undefined,
  mechanisms: checked('mechanism'),
  methods: checked('method'),
  prior: $<HTMLSelectElement>('prior').value,
  contamination: {
    lambda: Number($<HTMLInputElement>('contamination').value),
    domain: [Number($<HTMLInputElement>('domain-lo').value || Number.NaN), Number($<HTMLInputElement>('domain-hi').value || Number.NaN)],
  },
});

/** The inputs of the last calibration asked for: the same inputs are not computed twice. */
let lastRun = '';
/** The audit scale the page filled in itself (a value the user typed is never overwritten). */
let autoScale = '';

function run() {
  const p = params();
  message('');
  invalidate();
  lastRun = JSON.stringify(p);
  busy(true);
  $('results-for').textContent =
    `computing: ${targetText(p.alpha, p.epsilon, p.delta)}${p.query ? `, ${[p.query, ...p.also].join(', ')} by ${p.secretColumn}` : ''}…`;
  // Thread count for the calibrations: the machine's cores unless the address says `?threads=N`;
  // `?helpers=now` starts the nested workers at once instead of when the work repays them.
  const search = new URLSearchParams(location.search);
  const threads = Number(search.get('threads')) || undefined;
  const helpers = search.get('helpers') === 'now' ? 0 : undefined;
  send('calibrate', { type: 'calibrate', params: { ...p, threads, helpers } });
  send('spec', { type: 'spec', mechanism: p.mechanisms[0] ?? 'laplace', alpha: p.alpha, epsilon: p.epsilon, delta: p.delta });
}
/** The target as the page prints it. */
const targetText = (alpha: unknown, epsilon: unknown, delta: unknown) =>
  delta === undefined || delta === null ? `α = ${alphaText(alpha)}, ε = ${epsilon}` : `(ε = ${epsilon}, δ = ${delta})`;
$('run').addEventListener('click', run);
// Changing α or ε recalculates when results are shown or an error is (the error may be what was fixed).
for (const id of ['alpha', 'epsilon', 'delta'])
  $(id).addEventListener('change', () => {
    // A change event can fire again on blur with the value already calibrated: nothing new to do.
    if (JSON.stringify(params()) === lastRun && !$('message').textContent) return;
    if ($('table').querySelector('tbody tr') || $('message').textContent) run();
    else invalidate();
  });
$('cancel').addEventListener('click', () => {
  // The worker may be deep in a calibration: stop it, start a fresh one and give it the data again.
  worker.terminate();
  worker = startWorker();
  invalidate();
  message('cancelled');
  holdResults(false);
  if (dataRequest) send('data', dataRequest);
});

$('audit').addEventListener('click', () => {
  const p = params();
  $('audit-message').textContent = '';
  const mechanism = $<HTMLSelectElement>('audit-mechanism').value;
  // (ε, δ): audited at the Rényi order and budget the family's smallest-noise result went through,
  // which give (ε, δ) by the conversion.
  let [alpha, epsilon]: [unknown, number] = [p.alpha, p.epsilon];
  if (p.delta !== undefined) {
    const via = lastResults?.rows
      .filter((r) => r.mechanism === mechanism && r.alpha !== undefined)
      .reduce<ResultRow | null>((a, b) => (!a || b.scale < a.scale ? b : a), null);
    if (!via) {
      $('audit-message').textContent = `error: calibrate ${mechanism} noise for this (ε, δ) first: the audit checks the Rényi order it goes through`;
      return;
    }
    [alpha, epsilon] = [via.alpha, via.renyiEpsilon!];
  }
  send('audit', {
    type: 'audit',
    mechanism,
    scale: Number($<HTMLInputElement>('audit-scale').value),
    alpha,
    epsilon,
    target: p.delta === undefined ? null : { epsilon: p.epsilon, delta: p.delta },
  });
});
const requestRelease = (allowNoNoise: boolean) => {
  const p = params();
  $('release-message').textContent = '';
  $('released').replaceChildren(); // no earlier draw stays beside a new request
  // The noise picked in the release step; else the recommended row's family, the worker choosing
  // its method for the number of draws (exact covers one release).
  const picked = $<HTMLSelectElement>('release-method').value;
  const [mech, method] = picked ? picked.split(':') : [lastResults?.recommended?.mechanism ?? 'laplace', ''];
  send('release', {
    type: 'release',
    mechanism: mech,
    method,
    alpha: p.alpha,
    epsilon: p.epsilon,
    ...(p.delta !== undefined ? { delta: p.delta } : {}),
    // An empty field is no value (Number('') would be 0): the worker refuses it by name.
    value: $<HTMLInputElement>('value').value.trim() === '' ? Number.NaN : Number($<HTMLInputElement>('value').value),
    // A vector query's values as typed: the worker reads each coordinate exactly or refuses it by position.
    vector: $<HTMLInputElement>('vector-value').value,
    methods: p.methods,
    contamination: p.contamination,
    count: Number($<HTMLInputElement>('count').value),
    allowNoNoise,
  });
};
$('release').addEventListener('click', () => requestRelease(false));
$('copy-spec').addEventListener('click', () => void navigator.clipboard?.writeText(JSON.stringify(lastSpec, null, 2)));
$('download-spec').addEventListener('click', () => download('pufferfish-spec.json', 'application/json', JSON.stringify(lastSpec, null, 2)));
$('download-results').addEventListener('click', () => {
  if (!lastResults) return;
  const r = lastResults;
  const head = [
    'scenario',
    'alpha',
    'epsilon',
    'mechanism',
    'method',
    'rule',
    'scale',
    'noise_95pct_halfwidth',
    'variance',
    'binding_prior',
    'binding_pair',
    'recommended',
    'delta',
    'renyi_epsilon',
  ];
  // Exact values (shortest round-trip decimals), not the rounded display.
  const body = r.rows.map((x) => [
    cellText(r.scenario),
    String(x.alpha ?? r.alpha),
    String(r.epsilon),
    x.mechanism,
    x.method,
    cellText(x.rule),
    String(x.scale),
    String(x.halfWidth),
    String(x.variance),
    cellText(x.binding?.prior ?? ''),
    cellText(x.binding ? x.binding.pair.join(' vs ') : ''),
    x === r.recommended ? 'yes' : '',
    r.delta === undefined ? '' : String(r.delta),
    x.renyiEpsilon === undefined ? '' : String(x.renyiEpsilon),
  ]);
  download('pufferfish-results.csv', 'text/csv', `${csvFormatRows([head, ...body])}\n`);
});
$('download-audit').addEventListener('click', () => {
  if (!lastAudit) return;
  const lines = [
    '# Pufferfish audit',
    '',
    mdCell(lastAudit.caption),
    '',
    `| prior | direction | ${lastAudit.bound ? 'D_α ≤' : 'D_α'} | slack to ε | ε-PP | verdict |`,
    '|---|---|---:|---:|---:|---|',
    ...lastAudit.rows.map(
      (r: any) =>
        `| ${mdCell(r.prior)} | ${mdCell(r.direction.join(' ‖ '))} | ${fmt(r.divergence)} | ${numDown(r.slack)} | ${r.pufferfishEpsilon === null ? '—' : fmt(r.pufferfishEpsilon)} | ${r.slack >= 0 ? 'pass' : 'fail'} |`,
    ),
    '',
    lastAudit.bound
      ? 'D_α and ε-PP are rounded up and the slack down; each D_α is a certified upper bound for the vector release (coupled bound, docs/math.md §12).'
      : 'D_α and ε-PP are rounded up and the slack down; each divergence is exact to a proved error bound (docs/math.md §4, §8).',
    '',
  ];
  download('pufferfish-audit.md', 'text/markdown', lines.join('\n'));
});

/** The data preview: per column its type, what is missing, distinct values, and why it cannot be the query. */
function showPreview(cols: any[]): void {
  $('preview').hidden = false;
  $('preview')
    .querySelector('tbody')!
    .replaceChildren(
      row(['column', 'type', 'missing', 'distinct', 'note'], {}, true),
      ...cols.map((c) =>
        row([
          c.name,
          c.numeric ? 'number' : 'text',
          [String(c.missing), 'num'],
          [String(c.distinct), 'num'],
          c.numeric
            ? c.present
              ? `from ${c.min} to ${c.max}`
              : 'empty'
            : c.nonNumeric < c.present / 2
              ? `cannot be the query: ${c.nonNumeric} entr${c.nonNumeric === 1 ? 'y is' : 'ies are'} not numbers (${c.examples.map((x: string) => `“${x}”`).join(', ')})`
              : 'secret or public column',
        ]),
      ),
    );
}

function onMessage(e: MessageEvent) {
  const m = e.data;
  // An answer to a request that is no longer the latest of its kind belongs to old inputs.
  if (m.rid !== latest[m.kind as Kind]) return;
  if (m.type === 'error') {
    // Shown beside what it concerns; an audit or release error leaves the results alone.
    if (m.kind === 'audit') $('audit-message').textContent = m.message;
    else if (m.kind === 'release') $('release-message').textContent = m.message;
    else {
      if (m.kind === 'calibrate' || m.kind === 'data') invalidate();
      if (m.kind === 'data') $('data-status').textContent = '';
      message(m.message);
      holdResults(false);
    }
    return;
  }
  if (m.type === 'loaded' || m.type === 'loaded-builtin') holdResults(false); // new data: nothing is being recomputed
  if (m.type === 'loaded') {
    $<HTMLFieldSetElement>('table-fields').disabled = false;
    $<HTMLSelectElement>('prior').disabled = false;
    options($('query'), m.numeric);
    fillAlso(m.numeric);
    options($('secret'), m.columns);
    options($('given'), m.columns, true);
    summaries = m.summaries;
    fillDomain();
    $('data-status').textContent = `${fileName}: ${m.rows} rows, ${m.columns.length} columns`;
    showPreview(m.summaries);
    send('values', { type: 'values', column: $<HTMLSelectElement>('secret').value });
  } else if (m.type === 'loaded-builtin') {
    $<HTMLFieldSetElement>('table-fields').disabled = true;
    // A built-in scenario is its one prior (no table to resample).
    $<HTMLSelectElement>('prior').value = 'empirical';
    $<HTMLSelectElement>('prior').disabled = true;
    $('data-status').textContent = `${m.name} (secrets ${m.secrets.join(' vs ')})`;
    $('preview').hidden = true;
    summaries = [];
    $<HTMLInputElement>('domain-lo').value = String(m.range[0]);
    $<HTMLInputElement>('domain-hi').value = String(m.range[1]);
    fileName = '';
  } else if (m.type === 'values') {
    $('values').replaceChildren(
      ...m.values.map((v: string) => {
        const label = el('label');
        label.append(el('input', undefined, { type: 'checkbox', name: 'secret-value', value: v }), ` ${v}`);
        return label;
      }),
    );
    $('values-note').textContent =
      m.total > m.values.length
        ? `Showing the ${m.values.length} most frequent of ${m.total} values; none ticked means all ${m.total}.`
        : 'Tick the secret values to tell apart (none ticked: every pair of values).';
  } else if (m.type === 'results') {
    $('results-for').textContent = `results for ${targetText(m.alpha, m.epsilon, m.delta)}: ${m.scenario}`;
    if (m.data) {
      const d = m.data;
      $('data-used').textContent =
        `Calibrated on ${d.used} of ${d.rows} rows; ${d.dropped} dropped (a missing or non-numeric query value, or a missing secret or public value)` +
        (d.used + d.dropped < d.rows ? `; ${d.rows - d.used - d.dropped} have other secret values` : '') +
        (d.skippedGiven.length ? `; public values left out (rows of fewer than two secrets there): ${d.skippedGiven.join(', ')}` : '') +
        '.';
    }
    const rows: ResultRow[] = m.rows;
    // Every row is a valid calibration: the smallest noise (variance, comparable across families) is recommended.
    const recommended = rows.reduce<ResultRow | null>((a, b) => (!a || b.variance < a.variance ? b : a), null);
    const columns: string[] = m.columns ?? [];
    lastResults = {
      alpha: m.alpha,
      epsilon: m.epsilon,
      ...(m.delta !== undefined ? { delta: m.delta } : {}),
      scenario: m.scenario,
      rows,
      recommended,
      columns,
    };
    // A vector query releases one value per column.
    const vector = columns.length > 1;
    $('value-one').hidden = vector;
    $('value-vector').hidden = !vector;
    if (vector) $('vector-value-label').textContent = `True values to release (${columns.join(', ')}), separated by commas`;
    $<HTMLButtonElement>('download-results').disabled = rows.length === 0;
    const unit = columns.length === 1 ? ` ${columns[0]}` : '';
    const within = vector ? "95% of each column's releases land within ±" : '95% of releases land within ±';
    const ofTruth = vector ? ' of its true value (the same noise scale on every column).' : ' of the true value.';
    $('recommendation').textContent = !recommended
      ? ''
      : recommended.scale === 0
        ? `Recommended: ${recommended.mechanism}, ${recommended.label}: no noise is needed (${recommended.rule}). The release would be the raw value; widen the adversary (step 3) if that is not what you expect.`
        : `Recommended: ${recommended.mechanism} noise, ${recommended.label} (scale ${short(recommended.scale)}): the smallest noise among the valid calibrations you asked for. ${within}${short(recommended.halfWidth)}${unit}${ofTruth}`;
    const tb = $('table').querySelector('tbody')!;
    tb.replaceChildren(
      ...rows.map((r) =>
        row(
          [
            r.mechanism,
            r === recommended ? `${r.label} (recommended)` : r.label,
            r.alpha !== undefined ? `${r.rule}, via α = ${r.alpha === Infinity ? '∞' : r.alpha} (D_α ≤ ${numDown(r.renyiEpsilon!)})` : r.rule,
            [fmt(r.scale), 'num'],
            [r.scale === 0 ? '0' : fmt(r.halfWidth), 'num'],
            [fmt(r.variance), 'num'],
            r.binding ? `${r.binding.prior}: ${r.binding.pair.join(' vs ')}` : '— (no noise needed)',
          ],
          { 'data-mechanism': r.mechanism, 'data-method': r.method, 'data-scale': String(r.scale), ...(r === recommended ? { class: 'recommended' } : {}) },
        ),
      ),
    );
    $('skipped').textContent = m.skipped.length ? `Not shown: ${m.skipped.map((x: any) => `${x.mechanism} ${x.method} (${x.reason})`).join('; ')}.` : '';
    releaseChoices(rows);
    const best = rows.filter((r) => r.mechanism === 'laplace' && r.scale > 0).reduce<ResultRow | null>((a, b) => (!a || b.scale < a.scale ? b : a), null);
    const field = $<HTMLInputElement>('audit-scale');
    if (best && (field.value === '' || field.value === autoScale)) {
      autoScale = String(best.scale);
      field.value = autoScale;
    }
  } else if (m.type === 'plots') {
    busy(false); // the last answer of a calibration
    holdResults(false);
    if (m.note) {
      $('plot-note').textContent = m.note;
      return;
    }
    $('plot-alpha').replaceChildren(safeSvg(m.alpha));
    if (m.epsilon) $('plot-epsilon').replaceChildren(safeSvg(m.epsilon));
    $('plot-numbers')
      .querySelector('tbody')!
      .replaceChildren(
        row(['plot', 'mechanism', 'method', 'α', 'ε', 'value'], {}, true),
        ...(m.numbers ?? []).map((r: any) => row([r.what, r.mechanism, r.method, String(r.alpha), String(r.epsilon), [fmt(r.value), 'num']])),
      );
    const notes = ['Curves use the closed-form methods; exact is computed at the chosen α and ε only (one certified quadrature per point).'];
    if (checked('mechanism').includes('gaussian') && checked('method').includes('theorem') && checked('method').includes('coupled'))
      notes.push('For Gaussian noise the coupled bound equals Theorem 2, so their lines coincide (two point shapes on one line).');
    if (m.notPlotted?.length) notes.push(`Not on the log-variance plot where no noise is needed: ${m.notPlotted.join(', ')}.`);
    $('plot-note').textContent = notes.join(' ');
  } else if (m.type === 'audit') {
    const over = m.rows.filter((r: any) => !(r.slack >= 0)).length;
    $('audit-caption').textContent =
      `${m.mechanism} noise at scale ${String(m.scale)}, α = ${alphaText(m.alpha)}, ε = ${m.epsilon}${m.target ? ` (the Rényi budget at this order that gives (ε = ${m.target.epsilon}, δ = ${m.target.delta}))` : ''}: ${over === 0 ? 'pass' : `fail (${over} row(s) over ε)`}` +
      (m.bound ? ". A vector query: each D_α is a certified upper bound (coupled bound), so a pass is certified and a fail may be the bound's looseness" : '');
    lastAudit = { caption: $('audit-caption').textContent ?? '', rows: m.rows, bound: m.bound === true };
    $<HTMLButtonElement>('download-audit').disabled = false;
    $('audit-table')
      .querySelector('tbody')!
      .replaceChildren(
        row(['prior', 'direction', m.bound ? 'D_α ≤' : 'D_α', 'slack to ε', 'ε-PP', 'verdict'], {}, true),
        ...m.rows.map((r: any) =>
          row([
            r.prior,
            r.direction.join(' ‖ '),
            [fmt(r.divergence), 'num'],
            [numDown(r.slack), 'num'],
            [r.pufferfishEpsilon === null ? '—' : fmt(r.pufferfishEpsilon), 'num'],
            r.slack >= 0 ? 'pass' : 'fail',
          ]),
        ),
      );
  } else if (m.type === 'no-noise') {
    // A zero scale publishes the raw value: say why, and draw only on an explicit second click.
    const out = $('released');
    const text = document.createElement('p');
    text.setAttribute('role', 'alert');
    text.textContent = `Warning: no noise needed for this prior class, so the release would be the raw value. ${m.reason}`;
    const anyway = document.createElement('button');
    anyway.type = 'button';
    anyway.id = 'release-raw';
    anyway.textContent = 'Release the raw value anyway';
    anyway.addEventListener('click', () => requestRelease(true));
    out.replaceChildren(text, anyway);
  } else if (m.type === 'released') {
    // A vector release is one line per draw, its coordinates separated by commas; each value
    // carries its error bar (per coordinate for a vector).
    const bar = ([lo, hi]: [number, number]) => `[${numDown(lo)}, ${fmt(hi)}]`;
    const lines = m.values
      .map((v: number | number[], i: number) =>
        Array.isArray(v)
          ? `${v.join(', ')}   intervals ${(m.intervals[i] as [number, number][]).map(bar).join(' ')}`
          : `${v}   interval ${bar(m.intervals[i])}`,
      )
      .join('\n');
    const meaning = `Each interval holds the true value with probability ${m.confidence} over the noise${m.values.some(Array.isArray) ? ' (each coordinate alone)' : ''}.`;
    $('released').textContent =
      m.scale === 0
        ? `${lines}\n(no noise needed: ${m.guarantee})`
        : `${lines}\n(${m.method}${m.alpha !== undefined ? ` via α = ${m.alpha === Infinity ? '∞' : m.alpha}` : ''}, scale ${fmt(m.scale)}; CSPRNG, exact sampler)${m.values.length > 1 && m.together === m.values.length ? `\nThe ${m.values.length} draws are accounted together: publishing all of them keeps the guarantee.` : ''}\n${meaning}`;
  } else if (m.type === 'spec') {
    lastSpec = m.spec;
  }
}
