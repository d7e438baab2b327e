// The page: forms in, results out; all computation happens in the worker (the page stays responsive).
const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
let fileName = '';
let lastSpec: unknown = null;

const fmt = (x: number) => (x === 0 ? '0' : Math.abs(x) >= 1e-4 && Math.abs(x) < 1e7 ? String(Number(x.toPrecision(10))) : x.toExponential(9));
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

async function loadFile(file: File) {
  fileName = file.name;
  $<HTMLSelectElement>('builtin').value = '';
  message('');
  worker.postMessage({ type: 'load', name: file.name, text: await file.text() });
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
  if (id) worker.postMessage({ type: 'builtin', id });
});
$<HTMLSelectElement>('secret').addEventListener('change', (e) => worker.postMessage({ type: 'values', column: (e.target as HTMLSelectElement).value }));

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

function run() {
  const p = params();
  message('');
  $('run').setAttribute('aria-busy', 'true');
  worker.postMessage({ type: 'calibrate', params: p });
  worker.postMessage({ type: 'spec', mechanism: p.mechanisms[0] ?? 'laplace', alpha: p.alpha, epsilon: p.epsilon });
}
$('run').addEventListener('click', run);
for (const id of ['alpha', 'epsilon'])
  $(id).addEventListener('change', () => {
    if ($('table').querySelector('tbody tr')) run();
  });

$('audit').addEventListener('click', () => {
  const p = params();
  worker.postMessage({
    type: 'audit',
    mechanism: $<HTMLSelectElement>('audit-mechanism').value,
    scale: Number($<HTMLInputElement>('audit-scale').value),
    alpha: p.alpha,
    epsilon: p.epsilon,
  });
});
const requestRelease = (allowNoNoise: boolean) => {
  const p = params();
  worker.postMessage({
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

worker.onmessage = (e: MessageEvent) => {
  const m = e.data;
  if (m.type === 'error') {
    $('run').removeAttribute('aria-busy');
    $('table').querySelector('tbody')!.replaceChildren();
    message(m.message);
    return;
  }
  if (m.type === 'loaded') {
    $<HTMLFieldSetElement>('table-fields').disabled = false;
    options($('query'), m.numeric);
    options($('secret'), m.columns);
    options($('given'), m.columns, true);
    $('data-status').textContent = `${fileName}: ${m.rows} rows, ${m.columns.length} columns`;
    worker.postMessage({ type: 'values', column: $<HTMLSelectElement>('secret').value });
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
    $('run').removeAttribute('aria-busy');
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
    if (best) $<HTMLInputElement>('audit-scale').value = String(best.scale);
  } else if (m.type === 'plots') {
    $('plot-alpha').replaceChildren(safeSvg(m.alpha));
    $('plot-epsilon').replaceChildren(safeSvg(m.epsilon));
  } else if (m.type === 'audit') {
    $('audit-table')
      .querySelector('tbody')!
      .replaceChildren(
        row(['prior', 'direction', 'D_α', 'slack to ε', 'ε-PP'], {}, true),
        ...m.rows.map((r: any) =>
          row([
            r.prior,
            r.direction.join(' ‖ '),
            [fmt(r.divergence), 'num'],
            [fmt(r.slack), 'num'],
            [r.pufferfishEpsilon === null ? '—' : fmt(r.pufferfishEpsilon), 'num'],
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
};
