import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));
const WEB = fileURLToPath(new URL('../web', import.meta.url));
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
  );

describe('library hygiene', () => {
  it('never uses Math.random (releases draw only from the platform CSPRNG)', () => {
    const offenders = files(SRC).filter((f) => /Math\s*\.\s*random|Math\s*\[\s*['"]random/.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('the web page never parses data as HTML: no innerHTML, outerHTML, insertAdjacentHTML, document.write or text/html parsing', () => {
    const offenders = [...files(WEB), ...files(SRC)].filter((f) =>
      /\.(innerHTML|outerHTML)\b|insertAdjacentHTML|document\.write|['"]text\/html['"]|createContextualFragment/.test(readFileSync(f, 'utf8')),
    );
    expect(offenders).toEqual([]);
    // The check itself finds what it forbids.
    expect(/\.(innerHTML|outerHTML)\b/.test('el.innerHTML = x')).toBe(true);
  });

  it('docs/math.md: every section names the files that implement it, and every file named in the docs exists', () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const math = readFileSync(join(root, 'docs/math.md'), 'utf8');
    const sections = math.split(/^## /m).slice(1);
    expect(sections.length).toBeGreaterThan(10);
    for (const s of sections) expect(s, s.split('\n')[0]).toMatch(/\*Implemented in\* `(src|test)\//);
    const docs = ['README.md', 'docs/math.md', 'docs/cli.md', 'docs/architecture.md', 'docs/benchmarks.md'];
    const named = docs.flatMap((d) =>
      [...readFileSync(join(root, d), 'utf8').matchAll(/`((?:src|test|web|scripts|bench)\/[\w./-]+\.(?:ts|json|sh|md))`/g)].map((m) => m[1]),
    );
    expect(named.length).toBeGreaterThan(30);
    const missing = named.filter((f) => {
      try {
        readFileSync(join(root, f));
        return false;
      } catch {
        return true;
      }
    });
    expect(missing).toEqual([]);
  });

  it('cites only what ships: no MATH.md or seed files outside the repository', () => {
    const offenders = files(SRC).filter((f) => /MATH\.md|\.\.\/shared|seed 00\d/.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('packaging: a LICENSE, prepack (not prepare), caret ranges for runtime dependencies, docs/math.md shipped', () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toMatch(/MIT License/);
    expect(pkg.scripts.prepare).toBeUndefined();
    expect(pkg.scripts.prepack).toBeDefined();
    for (const [name, range] of Object.entries(pkg.dependencies)) expect(range, name).toMatch(/^\^/);
    expect(pkg.files).toContain('docs/math.md');
    expect(pkg.keywords.length).toBeGreaterThan(0);
  });

  it('importing the core entry loads no DuckDB, pg, Vega, resvg or Node built-in at run time (resolve hook)', () => {
    // A module hook records every module the import resolves; the static walk below could miss a computed import.
    const hook = `export async function resolve(s, c, next) { const r = await next(s, c); process.stderr.write('LOADED ' + r.url + '\\n'); return r; }`;
    const reg = `import { register } from 'node:module'; register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));`;
    const r = spawnSync(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(reg)}`, '--input-type=module', '-e', "await import('./dist/index.js')"],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    const loaded = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('LOADED '))
      .map((l) => l.slice(7));
    expect(loaded.some((u) => u.endsWith('/dist/index.js'))).toBe(true);
    expect(loaded.length).toBeGreaterThan(30);
    const outside = loaded.filter((u) => !u.includes('/dist/') && !u.includes('/node_modules/valibot/'));
    expect(outside).toEqual([]);
  });

  it('the core entry is browser-safe: its import graph reaches no Node built-in, native or heavy dependency', () => {
    const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
    const seen = new Set<string>(),
      bare = new Set<string>();
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g)) {
        const spec = m[1];
        if (spec.startsWith('.')) walk(join(file, '..', spec));
        else bare.add(spec);
      }
    };
    walk(join(DIST, 'index.js'));
    expect(seen.size).toBeGreaterThan(30);
    const heavy = [...bare].filter((b) => /^(node:|fs$|path$|os$|crypto$|@duckdb|pg$|vega|@resvg|fflate|cli-progress|commander)/.test(b));
    expect(heavy).toEqual([]);
    // and the Node entry adds them only behind it
    const nodeText = readFileSync(join(DIST, 'node.js'), 'utf8');
    expect(nodeText).toMatch(/from '\.\/index\.js'/);
  });

  it('one law model: no directory or exported function is specific to vectors, and only lawKind.ts reads the kind of law', () => {
    const dirs = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(dirs.filter((d) => /vector/i.test(d))).toEqual([]);
    const named = files(SRC).flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/export (?:async )?(?:function|const) (\w*vector\w*)/gi)].map((m) => `${f.slice(SRC.length)}: ${m[1]}`),
    );
    expect(named).toEqual([]);
    // The kind of a law source is read in one place (lawKindOf, behind byLaw); everything else
    // declares its per-kind implementations.
    const readers = [...files(SRC), ...files(WEB)].filter((f) => /lawKindOf\(|'points' in first|Array\.isArray\(first\)/.test(readFileSync(f, 'utf8')));
    expect(readers.map((f) => f.slice(SRC.length - 3))).toEqual(['src/distribution/lawKind.ts']);
  });

  it('no function longer than 120 lines (but the certified quadrature kernels a note keeps whole), and the page and worker have no `any`', () => {
    const long: string[] = [];
    const anys: string[] = [];
    const kept: string[] = [];
    for (const f of [...files(SRC), ...files(WEB)]) {
      const src = ts.createSourceFile(f, readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (n: ts.Node) => {
        if (ts.isFunctionLike(n) && 'body' in n && n.body) {
          const lines = src.getLineAndCharacterOfPosition(n.getEnd()).line - src.getLineAndCharacterOfPosition(n.getStart()).line + 1;
          const where = `${f.slice(SRC.length - 3)}:${src.getLineAndCharacterOfPosition(n.getStart()).line + 1} (${lines} lines)`;
          const note = ts.getJSDocCommentsAndTags(n).some((d) => /Kept whole \(over 120 lines\): a certified quadrature kernel/.test(d.getText()));
          if (lines > 120) (note ? kept : long).push(where);
        }
        if (n.kind === ts.SyntaxKind.AnyKeyword && f.startsWith(WEB)) anys.push(`${f}:${src.getLineAndCharacterOfPosition(n.getStart()).line + 1}`);
        ts.forEachChild(n, visit);
      };
      visit(src);
    }
    expect(long).toEqual([]);
    expect(anys).toEqual([]);
    expect(kept.length).toBeLessThanOrEqual(4);
    // The checks find what they forbid.
    const probe = ts.createSourceFile('x.ts', `function f(a: any) {\n${'  a;\n'.repeat(130)}}`, ts.ScriptTarget.Latest, true);
    const fn = probe.statements[0] as ts.FunctionDeclaration;
    expect(probe.getLineAndCharacterOfPosition(fn.getEnd()).line + 1).toBeGreaterThan(120);
    expect(fn.parameters[0].type?.kind).toBe(ts.SyntaxKind.AnyKeyword);
  });

  it('noise families are named only in src/mechanisms/: everything else reads the registry (reproduce, tests and bench aside)', () => {
    const families = new Set(['laplace', 'gaussian', 'exponential']);
    // `--fit gaussian` names a law fitted to the prior (a Gaussian component), not a noise family.
    const laws = new Set([join(SRC, 'gaussianPriors', 'fit.ts')]);
    const outside = [...files(SRC), ...files(WEB)].filter(
      (f) => !f.startsWith(join(SRC, 'mechanisms')) && !f.startsWith(join(SRC, 'reproduce')) && !laws.has(f),
    );
    const named: string[] = [];
    for (const f of outside) {
      const src = ts.createSourceFile(f, readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (n: ts.Node) => {
        if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && families.has(n.text))
          named.push(`${f.slice(SRC.length - 3)}:${src.getLineAndCharacterOfPosition(n.getStart()).line + 1} '${n.text}'`);
        ts.forEachChild(n, visit);
      };
      visit(src);
    }
    expect(named).toEqual([]);
    expect(outside.length).toBeGreaterThan(100);
  });

  it('every refusal is worded once: no message given to InputError twice in src/ (a shared check or helper says it)', () => {
    const seen = new Map<string, string[]>();
    for (const f of files(SRC)) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/InputError\(\s*(['`])((?:\\.|(?!\1).)*)\1/gs)) {
        if (m[2].length < 12) continue;
        seen.set(m[2], [...(seen.get(m[2]) ?? []), f.slice(SRC.length + 1)]);
      }
    }
    const twice = [...seen].filter(([, where]) => where.length > 1).map(([msg, where]) => `${msg} (${where.join(', ')})`);
    expect(twice).toEqual([]);
    expect(seen.size).toBeGreaterThan(300);
  });
});
