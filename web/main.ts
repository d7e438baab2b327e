// The page: forms in, results out; all computation happens in the worker (the page stays responsive).
// Every request carries an id; a response is shown only if it answers the latest request of its
// kind, so results always belong to the current inputs, and Cancel restarts the worker.
import { numDown, numUp } from '../src/cli/format.js';

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

/** Inputs changed: every result on the page belonged to the old ones, and in-flight answers are dropped. */
function invalidate(): void {
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
  for (const id of ['results-for', 'audit-message', 'release-message']) $(id).textContent = '';
  lastSpec = null;
}

async function loadFile(file: File) {
  fileName = file.name;
  $<HTMLSelectElement>('builtin').value = '';
  message('');
  invalidate();
  $<HTMLFieldSetElement>('table-fields').disabled = true;
  for (const id of ['query', 'secret', 'given', 'values']) $(id).replaceChildren();
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
for (const id of ['query', 'given']) $(id).addEventListener('change', invalidate);
$('values').addEventListener('change', invalidate);
for (const name of ['mechanism', 'method']) for (const box of document.querySelectorAll(`input[name=${name}]`)) box.addEventListener('change', invalidate);

const params = () => ({
  fileName,
  query: $<HTMLSelectElement>('query').value,
  secretColumn: $<HTMLSelectElement>('secret').value,
  values: checked('secret-value'),
  given: $<HTMLSelectElement>('given').value,
  alpha: Number($<HTMLInputElement>('alpha').value),
  epsilon: Number($<HTMLInputElement>('epsilon').value),
  mechanisms: checked('mechanism'),
  methods: checked('method'),
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
  $('results-for').textContent = `computing: α = ${p.alpha}, ε = ${p.epsilon}${p.query ? `, ${p.query} by ${p.secretColumn}` : ''}…`;
  send('calibrate', { type: 'calibrate', params: p });
  send('spec', { type: 'spec', mechanism: p.mechanisms[0] ?? 'laplace', alpha: p.alpha, epsilon: p.epsilon });
}
$('run').addEventListener('click', run);
// Changing α or ε recalculates when results are shown or an error is (the error may be what was fixed).
for (const id of ['alpha', 'epsilon'])
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
  if (dataRequest) send('data', dataRequest);
});

$('audit').addEventListener('click', () => {
  const p = params();
  $('audit-message').textContent = '';
  send('audit', {
    type: 'audit',
    mechanism: $<HTMLSelectElement>('audit-mechanism').value,
    scale: Number($<HTMLInputElement>('audit-scale').value),
    alpha: p.alpha,
    epsilon: p.epsilon,
  });
});
const requestRelease = (allowNoNoise: boolean) => {
  const p = params();
  $('release-message').textContent = '';
  send('release', {
    type: 'release',
    mechanism: $<HTMLSelectElement>('audit-mechanism').value,
    alpha: p.alpha,
    epsilon: p.epsilon,
    // An empty field is no value (Number('') would be 0): the worker refuses it by name.
    value: $<HTMLInputElement>('value').value.trim() === '' ? Number.NaN : Number($<HTMLInputElement>('value').value),
    methods: p.methods,
    count: Number($<HTMLInputElement>('count').value),
    allowNoNoise,
  });
};
$('release').addEventListener('click', () => requestRelease(false));
$('copy-spec').addEventListener('click', () => void navigator.clipboard?.writeText(JSON.stringify(lastSpec, null, 2)));
$('download-spec').addEventListener('click', () => {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([JSON.stringify(lastSpec, null, 2)], { type: 'application/json' }));
  a.download = 'pufferfish-spec.json';
  a.click();
});

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
    }
    return;
  }
  if (m.type === 'loaded') {
    $<HTMLFieldSetElement>('table-fields').disabled = false;
    options($('query'), m.numeric);
    options($('secret'), m.columns);
    options($('given'), m.columns, true);
    $('data-status').textContent = `${fileName}: ${m.rows} rows, ${m.columns.length} columns`;
    send('values', { type: 'values', column: $<HTMLSelectElement>('secret').value });
  } else if (m.type === 'loaded-builtin') {
    $<HTMLFieldSetElement>('table-fields').disabled = true;
    $('data-status').textContent = `${m.name} (secrets ${m.secrets.join(' vs ')})`;
    fileName = '';
  } else if (m.type === 'values') {
    $('values').replaceChildren(
      ...m.values.map((v: string) => {
        const label = el('label');
        label.append(el('input', undefined, { type: 'checkbox', name: 'secret-value', value: v }), ` ${v}`);
        return label;
      }),
    );
  } else if (m.type === 'results') {
    $('results-for').textContent = `results for α = ${m.alpha}, ε = ${m.epsilon}: ${m.scenario}`;
    const tb = $('table').querySelector('tbody')!;
    tb.replaceChildren(
      ...m.rows.map((r: any) =>
        row(
          [
            r.mechanism,
            r.label,
            r.rule,
            [fmt(r.scale), 'num'],
            [fmt(r.variance), 'num'],
            r.binding ? `${r.binding.prior}: ${r.binding.pair.join(' vs ')}` : '— (no noise needed)',
          ],
          { 'data-mechanism': r.mechanism, 'data-method': r.method, 'data-scale': String(r.scale) },
        ),
      ),
    );
    const best = m.rows.filter((r: any) => r.mechanism === 'laplace' && r.scale > 0).reduce((a: any, b: any) => (!a || b.scale < a.scale ? b : a), null);
    const field = $<HTMLInputElement>('audit-scale');
    if (best && (field.value === '' || field.value === autoScale)) {
      autoScale = String(best.scale);
      field.value = autoScale;
    }
  } else if (m.type === 'plots') {
    busy(false); // the last answer of a calibration
    $('plot-alpha').replaceChildren(safeSvg(m.alpha));
    if (m.epsilon) $('plot-epsilon').replaceChildren(safeSvg(m.epsilon));
    $('plot-numbers')
      .querySelector('tbody')!
      .replaceChildren(
        row(['plot', 'mechanism', 'method', 'α', 'ε', 'value'], {}, true),
        ...(m.numbers ?? []).map((r: any) => row([r.what, r.mechanism, r.method, String(r.alpha), String(r.epsilon), [fmt(r.value), 'num']])),
      );
  } else if (m.type === 'audit') {
    const over = m.rows.filter((r: any) => !(r.slack >= 0)).length;
    $('audit-caption').textContent =
      `${m.mechanism} noise at scale ${String(m.scale)}, α = ${m.alpha}, ε = ${m.epsilon}: ${over === 0 ? 'pass' : `fail (${over} row(s) over ε)`}`;
    $('audit-table')
      .querySelector('tbody')!
      .replaceChildren(
        row(['prior', 'direction', 'D_α', 'slack to ε', 'ε-PP', 'verdict'], {}, true),
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
    $('released').textContent =
      m.scale === 0
        ? `${m.values.join('\n')}\n(no noise needed: ${m.guarantee})`
        : `${m.values.join('\n')}\n(${m.method}, scale ${fmt(m.scale)}; CSPRNG, exact sampler)`;
  } else if (m.type === 'spec') {
    lastSpec = m.spec;
  }
}
