// The page: forms in, results out; all computation happens in the worker (the page stays responsive).
// Every request carries an id; a response is shown only if it answers the latest request of its
// kind, so results always belong to the current inputs, and Cancel restarts the worker.
import { csvFormatRows } from 'd3-dsv';
import { decimalUp, numDown, numUp } from '../src/cli/format.js';
import type { AuditRow } from '../src/audit/rows.js';
import type { ColumnSummary } from '../src/sources/csvText.js';
import { guessColumns } from '../src/sources/columnGuess.js';
import { PRIOR_DRAWS, SETTINGS, settingDefault } from '../src/settings.js';
import type { CalibrateParams, Envelope, FormAlpha, Kind, Request, Response, ResultRow } from './protocol.js';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
/** Everything the page keeps between events. */
const page = {
  fileName: '',
  lastSpec: null as unknown,
  nextId: 0,
  /** The id of the latest request of each kind: older answers are dropped. */
  latest: {} as Partial<Record<Kind, number>>,
  /** The last data request (file text or built-in), replayed into a restarted worker. */
  dataRequest: null as Request | null,
  worker: null as unknown as Worker,
  /** The inputs of the last calibration asked for: the same inputs are not computed twice. */
  lastRun: '',
  /** The audit scale the page filled in itself (a value the user typed is never overwritten). */
  autoScale: '',
  /** What the exports are made of: the shown results and audit, with the inputs they belong to. */
  lastResults: null as LastResults | null,
  lastAudit: null as { caption: string; rows: (AuditRow & { group?: string })[]; bound: boolean } | null,
  /** Column summaries of the loaded table (for the contamination range of the query column). */
  summaries: [] as ColumnSummary[],
  /** Rows of the loaded table (a chain's count lies in [0, T], T at most this). */
  rows: 0,
  /** When the running calibration started (for its elapsed time). */
  started: 0,
  /** Where Release was while the pointer is down on it (a change of α, ε or δ may recalibrate before the click). */
  releasePressed: null as DOMRect | null,
  /** A Release asked for while its calibration runs: drawn when the results arrive. */
  pendingRelease: false,
};

/** The form's starting values and bounds, read off the settings' declarations: the CLI's defaults. */
function declaredDefaults(): void {
  for (const name of ['alpha', 'epsilon', 'delta', 'count', 'contamination'] as const) $<HTMLInputElement>(name).value = String(settingDefault(name));
  $<HTMLInputElement>('prior-draws').value = '20';
  $<HTMLInputElement>('seed').value = '0';
  $<HTMLInputElement>('seed').min = String(SETTINGS.seed.min);
  $<HTMLInputElement>('prior-draws').min = String(PRIOR_DRAWS.min);
  $<HTMLInputElement>('prior-draws').max = String(PRIOR_DRAWS.max);
  // A form the browser restored may hold a drawn class: its row shows from the start.
  showPriorDraws();
  $<HTMLInputElement>('count').max = String(SETTINGS.count.pageMax);
  $('confidence-share').textContent = `${100 * settingDefault('confidence')}%`;
}
declaredDefaults();
page.worker = startWorker();
function startWorker(): Worker {
  const w = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
  w.onmessage = onMessage;
  return w;
}
function send(kind: Kind, m: Request): void {
  const rid = ++page.nextId;
  page.latest[kind] = rid;
  const envelope: Envelope<Request> = { ...m, rid, kind };
  page.worker.postMessage(envelope);
}
const busy = (on: boolean) => {
  if (on) $('run').setAttribute('aria-busy', 'true');
  else $('run').removeAttribute('aria-busy');
  $('cancel').hidden = !on;
  if (!on) showProgress(null);
};

// Numbers for humans as the CLI prints them: scales, variances, divergences and ε levels rounded
// up, slack rounded down (the exact values stay in data attributes and the worker).
const fmt = numUp;
/** Four significant digits, rounded up: for sentences. */
const short = (x: number) => String(Number(decimalUp(x, 4)));
/** The page's first noise family (the form lists them in the registry's order). */
const firstMechanism = () => document.querySelector<HTMLInputElement>('input[name=mechanism]')!.value;
const checked = (name: string) => [...document.querySelectorAll<HTMLInputElement>(`input[name=${name}]:checked:not(:disabled)`)].map((i) => i.value);
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
  page.lastRun = '';
  page.pendingRelease = false;
  for (const k of ['calibrate', 'audit', 'release', 'spec'] as Kind[]) page.latest[k] = ++page.nextId;
  busy(false);
  $('table').querySelector('tbody')!.replaceChildren();
  $('plot-alpha').replaceChildren();
  $('plot-epsilon').replaceChildren();
  $('plot-numbers').querySelector('tbody')!.replaceChildren();
  $('audit-table').querySelector('tbody')!.replaceChildren();
  $('audit-caption').textContent = '';
  $('released').replaceChildren();
  $('chain-block').hidden = true;
  for (const id of ['chain-heatmap', 'chain-bars']) $(id).replaceChildren();
  $('chain-matrix').querySelector('tbody')!.replaceChildren();
  for (const id of ['results-for', 'audit-message', 'release-message', 'data-used', 'recommendation', 'skipped', 'plot-note']) $(id).textContent = '';
  page.lastSpec = null;
  page.lastResults = null;
  page.lastAudit = null;
  $<HTMLButtonElement>('download-results').disabled = true;
  $<HTMLButtonElement>('download-audit').disabled = true;
  releaseChoices([]);
}

/** The release step's noise list: the recommended method first, then every result row. */
function releaseChoices(rows: { mechanism: string; method: string; label: string; scale: number }[], perGroup = false): void {
  $('release-method').replaceChildren(
    el('option', 'the recommended method', { value: '' }),
    ...rows.map((r) =>
      el('option', `${r.mechanism}, ${r.label} (${perGroup ? "each group's own scale" : `scale ${fmt(r.scale)}`})`, { value: `${r.mechanism}:${r.method}` }),
    ),
  );
}
/** α as the page prints it. */
const alphaText = (a: unknown) => (a === 'inf' || a === Infinity ? '∞' : String(a));

type LastResults = {
  alpha: FormAlpha;
  epsilon: number;
  delta?: number;
  scenario: string;
  rows: ResultRow[];
  recommended: ResultRow | null;
  /** The query columns (several: a vector query). */
  columns: string[];
};

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
  page.fileName = file.name;
  $<HTMLSelectElement>('builtin').value = '';
  message('');
  invalidate();
  $<HTMLFieldSetElement>('table-fields').disabled = true;
  for (const id of ['query', 'also-query', 'secret', 'given', 'unit', 'values', 'values-note']) $(id).replaceChildren();
  $('preview').hidden = true;
  $('data-status').textContent = `reading ${file.name}…`;
  // Parquet by its magic bytes (or name), read in the worker; everything else as delimited text.
  const bytes = await file.arrayBuffer();
  const magic = String.fromCharCode(...new Uint8Array(bytes, 0, Math.min(4, bytes.byteLength)));
  page.dataRequest =
    magic === 'PAR1' || /\.parquet$/i.test(file.name)
      ? { type: 'load-parquet', name: file.name, bytes }
      : { type: 'load', name: file.name, text: new TextDecoder().decode(bytes) };
  send('data', page.dataRequest);
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
  page.dataRequest = { type: 'builtin', id };
  send('data', page.dataRequest);
});
$<HTMLSelectElement>('secret').addEventListener('change', (e) => {
  invalidate();
  send('values', { type: 'values', column: (e.target as HTMLSelectElement).value });
});
$('prior').addEventListener('change', showPriorDraws);
for (const id of [
  'query',
  'given',
  'prior',
  'prior-draws',
  'seed',
  'contamination',
  'domain-lo',
  'domain-hi',
  'publish',
  'predicate',
  'unit',
  'target-halfwidth',
])
  $(id).addEventListener('change', invalidate);
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
/**
 * The contamination range defaults to the released quantity's range: the query column's observed
 * range, or for a time series' count [0, T] (T the chain length, or the table's rows at most).
 */
function fillDomain(): void {
  if (sequenceMode()) {
    const length = $<HTMLInputElement>('seq-length').value.trim();
    $<HTMLInputElement>('domain-lo').value = '0';
    $<HTMLInputElement>('domain-hi').value = length !== '' ? length : String(page.rows);
    return;
  }
  const c = page.summaries.find((x) => x.name === $<HTMLSelectElement>('query').value);
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

/** The table read as a time series (a Markov chain) rather than as people with a secret each. */
const sequenceMode = () => $<HTMLInputElement>('read-sequence').checked;
/** Shows the fields of the way the table is read; the chain's own methods only for a time series. */
function showMode(): void {
  const seq = sequenceMode();
  $('people-fields').hidden = seq;
  $('sequence-fields').hidden = !seq;
  $('chain-methods').hidden = !seq;
  for (const box of $('chain-methods').querySelectorAll<HTMLInputElement>('input')) box.disabled = !seq;
  if (page.summaries.length) fillDomain();
  invalidate();
  if (seq && $<HTMLSelectElement>('seq-state').value) send('values', { type: 'values', column: $<HTMLSelectElement>('seq-state').value });
}
for (const id of ['read-people', 'read-sequence']) $(id).addEventListener('change', showMode);
$('seq-state').addEventListener('change', () => {
  invalidate();
  send('values', { type: 'values', column: $<HTMLSelectElement>('seq-state').value });
});
for (const id of ['seq-order', 'seq-group', 'seq-query', 'seq-sum', 'seq-length', 'seq-window']) $(id).addEventListener('change', invalidate);
// A sum per step takes each state's value.
$('seq-query').addEventListener('change', () => {
  $('seq-sum-row').hidden = $<HTMLSelectElement>('seq-query').value !== 'sum';
});
$('seq-length').addEventListener('change', fillDomain);
/** The sequence fields as the worker reads them (an empty length: the longest sequence). */
const sequenceParams = () => {
  const length = $<HTMLInputElement>('seq-length').value.trim();
  return {
    state: $<HTMLSelectElement>('seq-state').value,
    orderBy: $<HTMLSelectElement>('seq-order').value,
    groupBy: $<HTMLSelectElement>('seq-group').value,
    query: $<HTMLSelectElement>('seq-query').value === 'sum' ? `sum:${$<HTMLInputElement>('seq-sum').value.trim()}` : $<HTMLSelectElement>('seq-query').value,
    ...(length !== '' ? { length: Number(length) } : {}),
    ...($<HTMLInputElement>('seq-window').value.trim() !== '' ? { window: $<HTMLInputElement>('seq-window').value.trim() } : {}),
  };
};
for (const name of ['mechanism', 'method']) for (const box of document.querySelectorAll(`input[name=${name}]`)) box.addEventListener('change', invalidate);

/** A statistic of the table read as people (a sum or mean of the query column, a count or share of a condition), with its unit and the accuracy wanted if given. */
const statisticParams = (): Pick<CalibrateParams, 'statistic' | 'predicate' | 'unit' | 'targetHalfwidth'> => {
  const kind = $<HTMLSelectElement>('publish').value;
  if (sequenceMode() || !page.fileName || (kind !== 'sum' && kind !== 'mean' && kind !== 'count' && kind !== 'share')) return {};
  const h = $<HTMLInputElement>('target-halfwidth').value.trim();
  const predicate = $<HTMLInputElement>('predicate').value.trim();
  const unit = $<HTMLSelectElement>('unit').value;
  return {
    statistic: kind,
    ...((kind === 'count' || kind === 'share') && predicate !== '' ? { predicate } : {}),
    ...(unit ? { unit } : {}),
    ...(h !== '' ? { targetHalfwidth: Number(h) } : {}),
  };
};
/** The condition field for a count or share, the unit field for any statistic. */
function showStatisticFields(): void {
  const kind = $<HTMLSelectElement>('publish').value;
  $('predicate-field').hidden = kind !== 'count' && kind !== 'share';
  $('unit-field').hidden = kind === 'value';
}
$('publish').addEventListener('change', showStatisticFields);

const params = (): Omit<CalibrateParams, 'threads' | 'helpers'> => ({
  fileName: page.fileName,
  ...(sequenceMode() && page.fileName ? { sequence: sequenceParams() } : {}),
  query: $<HTMLSelectElement>('query').value,
  // Several columns: one vector query (docs/math.md §12).
  also: checked('also-query'),
  secretColumn: $<HTMLSelectElement>('secret').value,
  values: checked('secret-value'),
  given: $<HTMLSelectElement>('given').value,
  alpha: $<HTMLInputElement>('alpha-inf').checked ? ('inf' as const) : Number($<HTMLInputElement>('alpha').value),
  epsilon: Number($<HTMLInputElement>('epsilon').value),
  // An empty δ field is no value (Number('') would be 0): NaN, refused by the worker by name.
  delta: deltaTarget() ? ($<HTMLInputElement>('delta').value.trim() === '' ? Number.NaN : Number($<HTMLInputElement>('delta').value)) : undefined,
  mechanisms: checked('mechanism'),
  methods: checked('method'),
  ...statisticParams(),
  ...priorParams(),
  contamination: {
    lambda: Number($<HTMLInputElement>('contamination').value),
    domain: [Number($<HTMLInputElement>('domain-lo').value || Number.NaN), Number($<HTMLInputElement>('domain-hi').value || Number.NaN)] as [number, number],
  },
});

/** The prior class, its draws and seed as typed (the worker reads them as the CLI reads --prior and --seed). */
function priorParams(): { prior: string; priorDraws?: string; seed?: string } {
  const kind = $<HTMLSelectElement>('prior').value;
  if (kind === 'empirical') return { prior: kind };
  return { prior: kind, priorDraws: $<HTMLInputElement>('prior-draws').value, seed: $<HTMLInputElement>('seed').value };
}

/** The draws and seed show for a drawn class only. */
function showPriorDraws(): void {
  $('prior-draws-row').hidden = $<HTMLSelectElement>('prior').value === 'empirical';
}

function run() {
  const p = params();
  message('');
  invalidate();
  page.lastRun = JSON.stringify(p);
  page.started = performance.now();
  busy(true);
  $('results-for').textContent = `computing: ${targetText(p.alpha, p.epsilon, p.delta)}${whatText(p)}…`;
  showProgress(null);
  // Thread count for the calibrations: the machine's cores unless the address says `?threads=N`;
  // `?helpers=now` starts the nested workers at once instead of when the work repays them.
  const search = new URLSearchParams(location.search);
  const threads = Number(search.get('threads')) || undefined;
  const helpers = search.get('helpers') === 'now' ? 0 : undefined;
  send('calibrate', { type: 'calibrate', params: { ...p, threads, helpers } });
  send('spec', { type: 'spec', mechanism: p.mechanisms[0] ?? firstMechanism(), alpha: p.alpha, epsilon: p.epsilon, delta: p.delta });
}
/** What is calibrated, as the page prints it: the chain's release, or the query columns by the secret. */
function whatText(p: ReturnType<typeof params>): string {
  if (p.sequence)
    return `, ${p.sequence.query.replace(/^count:/, 'steps in state ').replace(/^sum:/, 'the sum of values ')}${p.sequence.window ? ` per window (${p.sequence.window})` : ''} over ${p.sequence.state} ordered by ${p.sequence.orderBy}`;
  if (p.statistic) {
    const of = p.statistic === 'sum' || p.statistic === 'mean' ? p.query : p.predicate ? `rows with ${p.predicate}` : 'rows';
    return `, the ${p.statistic} of ${of}${p.unit ? ` (units: ${p.unit})` : ''} by ${p.secretColumn}${p.given ? ` per ${p.given}` : ''}`;
  }
  return p.query && page.fileName ? `, ${[p.query, ...p.also].join(', ')} by ${p.secretColumn}` : '';
}
/** The progress of the running calibration (units done of the total, and what is running), or none. */
function showProgress(m: { done: number; total: number; step: string } | null): void {
  const bar = $<HTMLProgressElement>('progress');
  bar.hidden = m === null;
  if (!m) {
    $('progress-text').textContent = '';
    return;
  }
  bar.max = m.total;
  bar.value = m.done;
  $('progress-text').textContent = `${m.step}: ${Math.floor((100 * m.done) / m.total)}% (${((performance.now() - page.started) / 1000).toFixed(0)} s)`;
}
/** The target as the page prints it. */
const targetText = (alpha: unknown, epsilon: unknown, delta: unknown) =>
  delta === undefined || delta === null ? `α = ${alphaText(alpha)}, ε = ${epsilon}` : `(ε = ${epsilon}, δ = ${delta})`;
$('run').addEventListener('click', run);
// Changing α or ε recalculates when results are shown or an error is (the error may be what was fixed).
for (const id of ['alpha', 'epsilon', 'delta'])
  $(id).addEventListener('change', () => {
    // A change event can fire again on blur with the value already calibrated: nothing new to do.
    if (JSON.stringify(params()) === page.lastRun && !$('message').textContent) return;
    if ($('table').querySelector('tbody tr') || $('message').textContent) {
      run();
      // Pressing Release committed this field: the recalibration empties the results above the
      // button, which moves before the mouseup (its click lost), so it is drawn when they arrive.
      if (page.releasePressed) page.pendingRelease = true;
    } else invalidate();
  });
$('cancel').addEventListener('click', () => {
  // The worker may be deep in a calibration: stop it, start a fresh one and give it the data again.
  page.worker.terminate();
  page.worker = startWorker();
  invalidate();
  message('cancelled');
  holdResults(false);
  if (page.dataRequest) send('data', page.dataRequest);
});

$('audit').addEventListener('click', () => {
  const p = params();
  $('audit-message').textContent = '';
  const mechanism = $<HTMLSelectElement>('audit-mechanism').value;
  // (ε, δ): audited at the Rényi order and budget the family's smallest-noise result went through,
  // which give (ε, δ) by the conversion.
  let [alpha, epsilon]: [FormAlpha | number | undefined, number] = [p.alpha, p.epsilon];
  if (p.delta !== undefined) {
    const scale = Number($<HTMLInputElement>('audit-scale').value);
    const rows = page.lastResults?.rows.filter((r) => r.mechanism === mechanism && r.alpha !== undefined) ?? [];
    // The window bounds have no α = ∞: a window scale that is the MQM's or group DP's holds by their
    // construction, which there is nothing to audit; others at the best row's finite order.
    if (p.sequence?.window !== undefined) {
      const own = rows.find((r) => r.scale === scale);
      if (own && own.alpha === Infinity) {
        $('audit-message').textContent =
          `${own.method} at scale ${scale} is ε-Pufferfish of all windows together by its construction (α = ∞), which gives the (ε, δ) target; the window bounds audit finite orders only, so there is nothing to check here`;
        return;
      }
    }
    const via = rows
      .filter((r) => !(p.sequence?.window !== undefined && r.alpha === Infinity))
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
/** What the curator confirmed for the release in progress: each warning's second click adds its own, keeping the others'. */
const confirmed = { allowNoNoise: false, leaveOutGroups: false };
const requestRelease = () => {
  const { allowNoNoise, leaveOutGroups } = confirmed;
  const p = params();
  $('release-message').textContent = '';
  // A release draws on the laws of the last calibration: none since the inputs changed, none to draw on.
  if (!page.lastResults) {
    $('release-message').textContent = 'error: calibrate the current inputs first (they changed since the last calibration)';
    return;
  }
  $('released').replaceChildren(); // no earlier draw stays beside a new request
  // The noise picked in the release step; else the recommended row's family, the worker choosing
  // its method for the number of draws (exact covers one release).
  const picked = $<HTMLSelectElement>('release-method').value;
  const [mech, method] = picked ? picked.split(':') : [page.lastResults?.recommended?.mechanism ?? firstMechanism(), ''];
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
    leaveOutGroups,
  });
};
$('release').addEventListener('pointerdown', () => (page.releasePressed = $('release').getBoundingClientRect()));
document.addEventListener(
  'pointerup',
  (e) => {
    // Released away from where the button was: the press is cancelled, as a click would be.
    const r = page.releasePressed;
    if (r && !(e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom)) page.pendingRelease = false;
    setTimeout(() => (page.releasePressed = null));
  },
  true,
);
$('release').addEventListener('click', () => {
  // A new release asks again for every confirmation.
  Object.assign(confirmed, { allowNoNoise: false, leaveOutGroups: false });
  // The current inputs are being calibrated: release when their results arrive.
  if (!page.lastResults && page.lastRun) page.pendingRelease = true;
  else requestRelease();
});
$('copy-spec').addEventListener('click', () => void navigator.clipboard?.writeText(JSON.stringify(page.lastSpec, null, 2)));
$('download-spec').addEventListener('click', () => download('pufferfish-spec.json', 'application/json', JSON.stringify(page.lastSpec, null, 2)));
$('download-results').addEventListener('click', () => {
  if (!page.lastResults) return;
  const r = page.lastResults;
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
    'group',
    'n',
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
    cellText(x.group ?? ''),
    x.units === undefined ? '' : String(x.units),
  ]);
  download('pufferfish-results.csv', 'text/csv', `${csvFormatRows([head, ...body])}\n`);
});
$('download-audit').addEventListener('click', () => {
  if (!page.lastAudit) return;
  const lines = [
    '# Pufferfish audit',
    '',
    mdCell(page.lastAudit.caption),
    '',
    `| group | prior | direction | ${page.lastAudit.bound ? 'D_α ≤' : 'D_α'} | slack to ε | ε-PP | verdict |`,
    '|---|---|---|---:|---:|---:|---|',
    ...page.lastAudit.rows.map(
      (r) =>
        `| ${mdCell(r.group ?? '')} | ${mdCell(r.prior)} | ${mdCell(r.direction.join(' ‖ '))} | ${fmt(r.divergence)} | ${numDown(r.slack)} | ${r.pufferfishEpsilon === null ? '—' : fmt(r.pufferfishEpsilon)} | ${r.slack >= 0 ? 'pass' : 'fail'} |`,
    ),
    '',
    page.lastAudit.bound
      ? 'D_α and ε-PP are rounded up and the slack down; each D_α is a certified upper bound for the vector release (coupled bound, docs/math.md §12).'
      : 'D_α and ε-PP are rounded up and the slack down; each divergence is exact to a proved error bound (docs/math.md §4, §8).',
    '',
  ];
  download('pufferfish-audit.md', 'text/markdown', lines.join('\n'));
});

/** The data preview: per column its type, what is missing, distinct values, and why it cannot be the query. */
function showPreview(cols: ColumnSummary[]): void {
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
              ? `cannot be the query: ${c.nonNumeric} entr${c.nonNumeric === 1 ? 'y is' : 'ies are'} not numbers (${c.examples.map((x) => `“${x}”`).join(', ')})`
              : 'secret or public column',
        ]),
      ),
    );
}

type Shown<T extends Response['type']> = (m: Envelope<Extract<Response, { type: T }>>) => void;

/** An error, shown beside what it concerns; an audit or release error leaves the results alone. */
const showError: Shown<'error'> = (m) => {
  if (m.kind === 'audit') $('audit-message').textContent = m.message;
  else if (m.kind === 'release') $('release-message').textContent = m.message;
  else {
    if (m.kind === 'calibrate' || m.kind === 'data') invalidate();
    if (m.kind === 'data') $('data-status').textContent = '';
    message(m.message);
    holdResults(false);
  }
};

const showLoaded: Shown<'loaded'> = (m) => {
  holdResults(false); // new data: nothing is being recomputed
  $<HTMLFieldSetElement>('table-fields').disabled = false;
  $<HTMLSelectElement>('prior').disabled = false;
  options($('query'), m.numeric);
  fillAlso(m.numeric);
  options($('secret'), m.columns);
  options($('given'), m.columns, true);
  options($('unit'), m.columns, true);
  options($('seq-state'), m.columns);
  options($('seq-order'), m.columns);
  options($('seq-group'), m.columns, true);
  // Guesses a curator corrects (columnGuess.ts): never an identifier, the secret not the query,
  // a date-like order and a state column of few values.
  const guess = guessColumns(m.summaries);
  const pick = (id: string, v: string | undefined) => {
    if (v !== undefined) $<HTMLSelectElement>(id).value = v;
  };
  pick('query', guess.query);
  pick('secret', guess.secret);
  pick('seq-state', guess.state);
  pick('seq-order', guess.order);
  markQueryBox();
  page.summaries = m.summaries;
  page.rows = m.rows;
  fillDomain();
  $('data-status').textContent = `${page.fileName}: ${m.rows} rows, ${m.columns.length} columns`;
  showPreview(m.summaries);
  send('values', { type: 'values', column: $<HTMLSelectElement>(sequenceMode() ? 'seq-state' : 'secret').value });
};

const showBuiltin: Shown<'loaded-builtin'> = (m) => {
  holdResults(false);
  $<HTMLFieldSetElement>('table-fields').disabled = true;
  // A built-in scenario is its one prior (no table to resample).
  $<HTMLSelectElement>('prior').value = 'empirical';
  $<HTMLSelectElement>('prior').disabled = true;
  $('prior-draws-row').hidden = true;
  $('data-status').textContent = `${m.name} (secrets ${m.secrets.join(' vs ')})`;
  $('preview').hidden = true;
  page.summaries = [];
  $<HTMLInputElement>('domain-lo').value = String(m.range[0]);
  $<HTMLInputElement>('domain-hi').value = String(m.range[1]);
  page.fileName = '';
};

const showValues: Shown<'values'> = (m) => {
  if (sequenceMode()) {
    // The states of the chosen column: count one of them, sum values given to them, or the histogram of all.
    const sel = $<HTMLSelectElement>('seq-query');
    sel.replaceChildren(
      ...m.values.map((v) => el('option', `the number of steps in state ${v}`, { value: `count:${v}` })),
      el('option', "the sum of each step's state's value", { value: 'sum' }),
      el('option', 'the histogram of states', { value: 'histogram' }),
    );
    $('seq-sum-row').hidden = true;
    return;
  }
  $('values').replaceChildren(
    ...m.values.map((v) => {
      const label = el('label');
      label.append(el('input', undefined, { type: 'checkbox', name: 'secret-value', value: v }), ` ${v}`);
      return label;
    }),
  );
  $('values-note').textContent =
    m.total > m.values.length
      ? `Showing the ${m.values.length} most frequent of ${m.total} values; none ticked means all ${m.total}.`
      : 'Tick the secret values to tell apart (none ticked: every pair of values).';
};

/** What the calibration was computed on: rows used and dropped. */
function dataUsedText(d: Extract<Response, { type: 'results' }>['data']): string {
  if (!d) return '';
  return (
    `Calibrated on ${d.used} of ${d.rows} rows; ${d.dropped} dropped (${d.droppedWhy ?? 'a missing or non-numeric query value, or a missing secret or public value'})` +
    (d.used + d.dropped < d.rows ? `; ${d.rows - d.used - d.dropped} have other secret values` : '') +
    (d.skippedGiven.length ? `; public values left out (rows of fewer than two secrets there): ${d.skippedGiven.join(', ')}` : '') +
    '.'
  );
}

/** The recommendation sentence: the smallest noise among the valid calibrations asked for. */
function recommendationText(recommended: ResultRow | null, columns: string[]): string {
  if (!recommended) return '';
  if (recommended.scale === 0)
    return `Recommended: ${recommended.mechanism}, ${recommended.label}: no noise is needed (${recommended.rule}). The release would be the raw value; widen the adversary (step 3) if that is not what you expect.`;
  const vector = columns.length > 1;
  const unit = columns.length === 1 ? ` ${columns[0]}` : '';
  const within = vector ? "95% of each column's releases land within ±" : '95% of releases land within ±';
  const ofTruth = vector ? ' of its true value (the same noise scale on every column).' : ' of the true value.';
  return `Recommended: ${recommended.mechanism} noise, ${recommended.label} (scale ${short(recommended.scale)}): the smallest noise among the valid calibrations you asked for. ${within}${short(recommended.halfWidth)}${unit}${ofTruth}`;
}

/**
 * One row of the results table. On a narrow screen the mechanism, rule, variance and binding
 * columns fold into the method cell (style.css), so the scale and ± columns stay in view.
 */
const resultRow = (r: ResultRow, recommended: ResultRow | null, groupPick = false) => {
  const rule = r.alpha !== undefined ? `${r.rule}, via α = ${r.alpha === Infinity ? '∞' : r.alpha} (D_α ≤ ${numDown(r.renyiEpsilon!)})` : r.rule;
  const binding = r.binding ? `${r.binding.prior}: ${r.binding.pair.join(' vs ')}` : r.scale === 0 ? '— (no noise needed)' : '— (the whole chain)';
  const tr = row(
    [
      [r.mechanism, 'wide'],
      `${r.group !== undefined ? `${r.group} (n = ${r.units}): ` : ''}${r.label}${r === recommended || groupPick ? ' (recommended)' : ''}`,
      [rule, 'wide'],
      [fmt(r.scale), 'num'],
      [r.scale === 0 ? '0' : fmt(r.halfWidth), 'num'],
      [fmt(r.variance), 'num wide'],
      [binding, 'wide'],
    ],
    {
      'data-mechanism': r.mechanism,
      'data-method': r.method,
      'data-scale': String(r.scale),
      ...(r === recommended || groupPick ? { class: 'recommended' } : {}),
    },
  );
  tr.children[1].prepend(el('span', r.mechanism, { class: 'narrow mechanism', 'aria-hidden': 'true' }));
  tr.children[1].append(el('span', `${rule}; variance ${fmt(r.variance)}; binding ${binding}`, { class: 'narrow', 'aria-hidden': 'true' }));
  return tr;
};

const showResults: Shown<'results'> = (m) => {
  $('results-for').textContent = `results for ${targetText(m.alpha, m.epsilon, m.delta)}: ${m.scenario}`;
  if (m.data) $('data-used').textContent = dataUsedText(m.data);
  if (m.statistic) $('data-used').textContent = `${m.statistic.notes.map((l) => `${l[0].toUpperCase()}${l.slice(1)}`).join('. ')}.`;
  const rows = m.rows;
  // Every row is a valid calibration: the smallest noise (variance, comparable across families) is recommended.
  const recommended = rows.reduce<ResultRow | null>((a, b) => (!a || b.variance < a.variance ? b : a), null);
  const columns = m.columns ?? [];
  page.lastResults = {
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
  const statistic = m.statistic !== undefined;
  $('value-one').hidden = vector || statistic;
  $('value-computed').hidden = !statistic;
  // Per group, each group's own smallest noise is recommended (each group is released with its own).
  const perGroup = new Map<string, ResultRow>();
  for (const r of rows) if (r.group !== undefined && (!perGroup.has(r.group) || r.variance < perGroup.get(r.group)!.variance)) perGroup.set(r.group, r);
  const chosen = new Set(perGroup.values());
  $('recommendation').textContent = perGroup.size
    ? `Recommended per ${m.statistic?.groupBy} value: ${[...perGroup].map(([g, r]) => `${g}: ${r.mechanism} ${r.label}, ±${short(r.halfWidth)}`).join('; ')} (95% of releases land within ± of the true ${m.statistic?.label}).`
    : statistic && recommended
      ? `${recommendationText(recommended, []).replace(/ of the true value\.$/, ` of the true ${m.statistic!.label}.`)}`
      : recommendationText(recommended, columns);
  if (m.plan)
    $('recommendation').textContent += ` Plan: ±${m.plan.target} needs ε = ${m.plan.groups
      .map((g) => `${g.floor ? `≤ ${short(g.epsilon)}` : short(g.epsilon)}${g.group ? ` (${g.group})` : ''}`)
      .join(', ')} (${m.plan.mechanism}, best method, at this α); a release uses the budget field's ε: set it to the plan's.`;
  $('table')
    .querySelector('tbody')!
    .replaceChildren(...rows.map((r) => resultRow(r, perGroup.size ? null : recommended, chosen.has(r))));
  $('skipped').textContent = m.skipped.length ? `Not shown: ${m.skipped.map((x) => `${x.mechanism} ${x.method} (${x.reason})`).join('; ')}.` : '';
  // Per group the same noise is one choice (each group at its own scale).
  releaseChoices(
    perGroup.size ? rows.filter((r, i) => rows.findIndex((x) => x.mechanism === r.mechanism && x.method === r.method) === i) : rows,
    perGroup.size > 0,
  );
  // The audit form's family: its smallest calibrated scale fills the scale field; per public group,
  // the largest of the groups' smallest (the one scale at which every group passes).
  const family = $<HTMLSelectElement>('audit-mechanism').value;
  const smallest = new Map<string, number>();
  for (const r of rows) if (r.mechanism === family && r.scale > 0) smallest.set(r.group ?? '', Math.min(r.scale, smallest.get(r.group ?? '') ?? Infinity));
  const field = $<HTMLInputElement>('audit-scale');
  if (smallest.size && (field.value === '' || field.value === page.autoScale)) {
    page.autoScale = String(Math.max(...smallest.values()));
    field.value = page.autoScale;
  }
  if (page.pendingRelease) {
    page.pendingRelease = false;
    Object.assign(confirmed, { allowNoNoise: false, leaveOutGroups: false });
    requestRelease();
  }
};

const showPlots: Shown<'plots'> = (m) => {
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
      ...m.numbers.map((r) => row([r.what, r.mechanism, r.method, String(r.alpha), String(r.epsilon), [fmt(r.value), 'num']])),
    );
  const notes = ['Curves use the closed-form methods; exact is computed at the chosen α and ε only (one certified quadrature per point).'];
  notes.push(...(m.remarks ?? []));
  if (m.notPlotted.length) notes.push(`Not on the log-variance plot where no noise is needed: ${m.notPlotted.join(', ')}.`);
  $('plot-note').textContent = notes.join(' ');
};

const showAudit: Shown<'audit'> = (m) => {
  const over = m.rows.filter((r) => !(r.slack >= 0)).length;
  const grouped = m.rows.some((r) => r.group !== undefined);
  $('audit-caption').textContent =
    `${m.mechanism} noise at scale ${String(m.scale)}, α = ${alphaText(m.alpha)}, ε = ${m.epsilon}${m.target ? ` (the Rényi budget at this order that gives (ε = ${m.target.epsilon}, δ = ${m.target.delta}))` : ''}: ${over === 0 ? 'pass' : `fail (${over} row(s) over ε)`}` +
    (m.bound ? ". A vector query: each D_α is a certified upper bound (coupled bound), so a pass is certified and a fail may be the bound's looseness" : '');
  page.lastAudit = { caption: $('audit-caption').textContent ?? '', rows: m.rows, bound: m.bound };
  $<HTMLButtonElement>('download-audit').disabled = false;
  $('audit-table')
    .querySelector('tbody')!
    .replaceChildren(
      // The verdict first: on a narrow screen it stays in view.
      row(['verdict', ...(grouped ? ['group'] : []), 'prior', 'direction', m.bound ? 'D_α ≤' : 'D_α', 'slack to ε', 'ε-PP'], {}, true),
      ...m.rows.map((r) =>
        row([
          r.slack >= 0 ? 'pass' : 'fail',
          ...(grouped ? [r.group ?? ''] : []),
          r.prior,
          r.direction.join(' ‖ '),
          [fmt(r.divergence), 'num'],
          [numDown(r.slack), 'num'],
          [r.pufferfishEpsilon === null ? '—' : fmt(r.pufferfishEpsilon), 'num'],
        ]),
      ),
    );
};

/** A zero scale publishes the raw value: say why, and draw only on an explicit second click. */
const showNoNoise: Shown<'no-noise'> = (m) => {
  const text = el('p', `Warning: no noise needed for this prior class, so the release would be the raw value. ${m.reason}`, { role: 'alert' });
  const anyway = el('button', 'Release the raw value anyway', { type: 'button', id: 'release-raw' });
  anyway.addEventListener('click', () => {
    confirmed.allowNoNoise = true;
    requestRelease();
  });
  $('released').replaceChildren(text, anyway);
};

/** Groups of one secret value would be absent from a per-group release: say what that tells, and release the others only on a second click. */
const showLeftOut: Shown<'left-out'> = (m) => {
  const text = el('p', `Warning: ${m.reason}.`, { role: 'alert' });
  const anyway = el('button', 'Release the other groups anyway', { type: 'button', id: 'release-left-out' });
  anyway.addEventListener('click', () => {
    confirmed.leaveOutGroups = true;
    requestRelease();
  });
  $('released').replaceChildren(text, anyway);
};

/** The draws, one line each (a vector's coordinates separated by commas), each with its error bar. */
const showReleased: Shown<'released'> = (m) => {
  const bar = ([lo, hi]: [number, number]) => `[${numDown(lo)}, ${fmt(hi)}]`;
  const lines = m.values
    .map((v, i) =>
      m.labels
        ? `${m.labels[i]}: ${v}   interval ${bar(m.intervals[i] as [number, number])}`
        : Array.isArray(v)
          ? `${v.join(', ')}   intervals ${(m.intervals[i] as [number, number][]).map(bar).join(' ')}`
          : `${v}   interval ${bar(m.intervals[i] as [number, number])}`,
    )
    .join('\n');
  const meaning = `Each interval holds the true value with probability ${m.confidence} over the noise${m.values.some(Array.isArray) ? ' (each coordinate alone)' : ''}.`;
  $('released').textContent = m.windows
    ? `${lines}\n(${m.guarantee}; CSPRNG, exact sampler)\n${meaning}`
    : m.labels
      ? `${lines}\n(each group with its own noise, as listed; CSPRNG, exact sampler)\n${meaning}${m.note ? `\nNote: ${m.note}` : ''}`
      : m.scale === 0
        ? `${lines}\n(no noise needed: ${m.guarantee})`
        : `${lines}\n(${m.method}${m.alpha !== undefined ? ` via α = ${m.alpha === Infinity ? '∞' : m.alpha}` : ''}, scale ${fmt(m.scale)}; CSPRNG, exact sampler)${m.values.length > 1 && m.together === m.values.length ? `\nThe ${m.values.length} draws are accounted together: publishing all of them keeps the guarantee.` : ''}\n${meaning}${m.note ? `\nNote: ${m.note}` : ''}`;
};

/** A chain: what it was estimated from, its transition matrix (a heat map and, as text, a table) and the noise per method. */
const showChain: Shown<'chain'> = (m) => {
  $('chain-block').hidden = false;
  $('chain-summary').textContent =
    `The chain: ${m.states.length} states (${m.states.join(', ')}), estimated from ${m.sequences} sequence(s), the longest ${m.longest} steps; released over T = ${m.length} steps` +
    (m.draws ? `, with ${m.draws} more chains drawn for the prior class.` : '.') +
    (m.note ? ` Note: ${m.note}.` : '');
  $('chain-heatmap').replaceChildren(safeSvg(m.heatmap));
  $('chain-bars').replaceChildren(safeSvg(m.bars));
  $('chain-matrix')
    .querySelector('tbody')!
    .replaceChildren(
      row(['from \\ to', ...m.states], {}, true),
      ...m.states.map((from, i) =>
        row([from, ...m.states.map((_, j): [string, string] => [`${Number(m.transition[i][j].toPrecision(4))} (${m.counts[i][j]})`, 'num'])]),
      ),
    );
};

const shown: { [T in Response['type']]: Shown<T> } = {
  progress: (m) => showProgress(m),
  chain: showChain,
  error: showError,
  loaded: showLoaded,
  'loaded-builtin': showBuiltin,
  values: showValues,
  results: showResults,
  plots: showPlots,
  audit: showAudit,
  'no-noise': showNoNoise,
  'left-out': showLeftOut,
  released: showReleased,
  spec: (m) => {
    page.lastSpec = m.spec;
    for (const id of ['copy-spec', 'download-spec']) $<HTMLButtonElement>(id).disabled = m.spec === null;
  },
};

function onMessage(e: MessageEvent<Envelope<Response>>) {
  const m = e.data;
  // An answer to a request that is no longer the latest of its kind belongs to old inputs.
  if (m.rid !== page.latest[m.kind]) return;
  (shown[m.type] as (m: Envelope<Response>) => void)(m);
}
