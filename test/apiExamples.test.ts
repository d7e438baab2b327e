import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRIES = ['src/index.ts', 'src/node.ts'].map((f) => join(ROOT, f));

interface Documented {
  entry: string;
  name: string;
  kind: 'value' | 'type';
  docs: string;
  examples: string[];
}

/** Every export of both entries with its doc comment and `@example`s, read by the TypeScript checker. */
function exportsOf(): Documented[] {
  const program = ts.createProgram(ENTRIES, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
  });
  const checker = program.getTypeChecker();
  return ENTRIES.flatMap((file) => {
    const sf = program.getSourceFile(file)!;
    const mod = checker.getSymbolAtLocation(sf)!;
    return checker.getExportsOfModule(mod).map((e) => {
      const target = e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e;
      const decl = target.declarations?.[0];
      const isValue = !!(target.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Class | ts.SymbolFlags.Variable));
      // Overloads: the doc comment may sit on any declaration.
      const tags = (target.declarations ?? []).flatMap((d) => ts.getJSDocTags(d));
      const docs =
        ts.displayPartsToString(target.getDocumentationComment(checker)) ||
        (decl
          ? ts
              .getJSDocCommentsAndTags(decl)
              .map((j) => j.getText())
              .join('')
          : '');
      const examples = tags
        .filter((t) => t.tagName.text === 'example')
        .map((t) => (typeof t.comment === 'string' ? t.comment : (ts.getTextOfJSDocComment(t.comment) ?? '')));
      return { entry: file.endsWith('node.ts') ? 'pufferfish/node' : 'pufferfish', name: e.name, kind: isValue ? 'value' : 'type', docs, examples };
    });
  });
}

const all = exportsOf();
const unique = [...new Map(all.map((d) => [d.name, d])).values()];

describe('the API reference: every export documented, every function and value with an example that runs', () => {
  it('both entries export a documented API', () => {
    expect(all.filter((d) => d.entry === 'pufferfish').length).toBeGreaterThan(40);
    const undocumented = unique.filter((d) => d.docs.trim() === '').map((d) => d.name);
    expect(undocumented).toEqual([]);
    const noExample = unique.filter((d) => d.kind === 'value' && d.examples.length === 0).map((d) => d.name);
    expect(noExample).toEqual([]);
  });

  // The examples run against the built package (dist), with every export of pufferfish/node in scope,
  // in a scratch folder's parent so relative paths are the repository's.
  const examples = unique.flatMap((d) => d.examples.map((code, i) => ({ name: `${d.name}${d.examples.length > 1 ? ` #${i + 1}` : ''}`, code })));
  it.each(examples)('$name', async ({ code }) => {
    const api = await import('../dist/node.js');
    const scratch = mkdtempSync(join(tmpdir(), 'pf-example-'));
    const body = code.replace(/^```\w*\n?|```$/gm, '').trim();
    const lines = body.split('\n');
    // The last line is the example's value (a trailing `// …` says what it is).
    const last = lines
      .pop()!
      .replace(/\s\/\/\s.*$/, '')
      .trim();
    const js = transformSync(`(async () => {\n${lines.join('\n')}\nreturn (${last.replace(/;$/, '')});\n})`, { loader: 'ts' }).code;
    const names = Object.keys(api);
    const run = new Function('api', 'scratch', `const { ${names.join(', ')} } = api;\nreturn ${js.trim().replace(/;$/, '')}();`);
    const cwd = process.cwd();
    process.chdir(ROOT);
    try {
      const value = await run(api, scratch);
      expect(value).not.toBeUndefined();
    } finally {
      process.chdir(cwd);
    }
  });
});
