// The page: forms in, results out; all computation happens in the worker (the page stays responsive).
const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
let fileName = '';
let lastSpec: unknown = null;

const fmt = (x: number) => (x === 0 ? '0' : Math.abs(x) >= 1e-4 && Math.abs(x) < 1e7 ? String(Number(x.toPrecision(10))) : x.toExponential(9));
const checked = (name: string) => [...document.querySelectorAll<HTMLInputElement>(`input[name=${name}]:checked`)].map((i) => i.value);
const options = (sel: HTMLSelectElement, values: string[], blank = false) => {
  sel.innerHTML = (blank ? '<option value="">—</option>' : '') + values.map((v) => `<option>${v.replace(/</g, '&lt;')}</option>`).join('');
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
drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
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
for (const id of ['alpha', 'epsilon']) $(id).addEventListener('change', () => { if ($('table').querySelector('tbody tr')) run(); });

$('audit').addEventListener('click', () => {
  const p = params();
  worker.postMessage({ type: 'audit', mechanism: $<HTMLSelectElement>('audit-mechanism').value, scale: Number($<HTMLInputElement>('audit-scale').value), alpha: p.alpha, epsilon: p.epsilon });
});
$('release').addEventListener('click', () => {
  const p = params();
  worker.postMessage({ type: 'release', mechanism: $<HTMLSelectElement>('audit-mechanism').value, alpha: p.alpha, epsilon: p.epsilon, value: Number($<HTMLInputElement>('value').value), count: Number($<HTMLInputElement>('count').value) });
});
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
    $('table').querySelector('tbody')!.innerHTML = '';
    return message(m.message);
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
    $('values').innerHTML = m.values.map((v: string) => `<label><input type="checkbox" name="secret-value" value="${v.replace(/"/g, '&quot;')}" /> ${v.replace(/</g, '&lt;')}</label>`).join('');
  } else if (m.type === 'results') {
    $('run').removeAttribute('aria-busy');
    const tb = $('table').querySelector('tbody')!;
    tb.innerHTML = m.rows.map((r: any) => `<tr data-mechanism="${r.mechanism}" data-method="${r.method}" data-scale="${r.scale}"><td>${r.mechanism}</td><td>${r.label}</td><td>${r.rule}</td><td class="num">${fmt(r.scale)}</td><td class="num">${fmt(r.variance)}</td><td>${r.binding ? `${r.binding.prior}: ${r.binding.pair.join(' vs ')}` : '— (no noise needed)'}</td></tr>`).join('');
    const best = m.rows.filter((r: any) => r.mechanism === 'laplace' && r.scale > 0).reduce((a: any, b: any) => (!a || b.scale < a.scale ? b : a), null);
    if (best) $<HTMLInputElement>('audit-scale').value = String(best.scale);
  } else if (m.type === 'plots') {
    $('plot-alpha').innerHTML = m.alpha;
    $('plot-epsilon').innerHTML = m.epsilon;
  } else if (m.type === 'audit') {
    $('audit-table').querySelector('tbody')!.innerHTML = '<tr><th>prior</th><th>direction</th><th>D_α</th><th>slack to ε</th><th>ε-PP</th></tr>' + m.rows.map((r: any) => `<tr><td>${r.prior}</td><td>${r.direction.join(' ‖ ')}</td><td class="num">${fmt(r.divergence)}</td><td class="num">${fmt(r.slack)}</td><td class="num">${r.pufferfishEpsilon === null ? '—' : fmt(r.pufferfishEpsilon)}</td></tr>`).join('');
  } else if (m.type === 'released') {
    $('released').textContent = m.scale === 0 ? `${m.values.join('\n')}\n(no noise needed: ${m.guarantee})` : `${m.values.join('\n')}\n(${m.method}, scale ${fmt(m.scale)}; CSPRNG, exact sampler)`;
  } else if (m.type === 'spec') {
    lastSpec = m.spec;
  }
};
