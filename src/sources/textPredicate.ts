// A count's or share's condition on a text table (the web page's: no SQL engine): one comparison
// `COLUMN OP VALUE`, read as DuckDB reads the same text, so the page and `--query count:…` agree.
import { InputError, unknownColumn } from '../errors.js';
import { cellNumber, isMissing, missingNumber, numericColumns, type TextTable } from './csvText.js';

/** The comparisons a text table's condition may use (SQL's, with `!=` and `==` as DuckDB accepts them). */
type Op = '=' | '<>' | '<' | '<=' | '>' | '>=';

const OPS: Record<string, Op> = { '=': '=', '==': '=', '<>': '<>', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

const oneComparison = (text: string) =>
  new InputError(
    `'${text}' is not one comparison COLUMN OP VALUE (OP one of = <> < <= > >=; e.g. chol > 240 or sex = 'Male'); any other SQL condition needs the CLI (--query count:PREDICATE)`,
    'predicate',
  );

/** The comparison's three parts, or null where the text is not one comparison. */
function parts(text: string): { name: string; op: Op; literal: { quoted: boolean; text: string } } | null {
  // A bare name as SQL reads one, or a "quoted" one ("" inside is a quote); then the operator; then
  // a number or a 'string' ('' inside is a quote).
  const m =
    /^\s*(?:([A-Za-z_][A-Za-z0-9_$]*)|"((?:[^"]|"")*)")\s*(==|=|<>|!=|<=|>=|<|>)\s*(?:'((?:[^']|'')*)'|([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?))\s*$/.exec(
      text,
    );
  if (!m) return null;
  const name = m[1] ?? m[2].replaceAll('""', '"');
  const literal = m[4] !== undefined ? { quoted: true, text: m[4].replaceAll("''", "'") } : { quoted: false, text: m[5] };
  return { name, op: OPS[m[3]], literal };
}

/** The column a name means: itself, or the one column equal to it but for case (SQL names ignore case). */
function columnOf(t: TextTable, name: string): number {
  const exact = t.columns.indexOf(name);
  if (exact >= 0) return exact;
  const folded = t.columns.flatMap((c, j) => (c.toLowerCase() === name.toLowerCase() ? [j] : []));
  if (folded.length !== 1) throw unknownColumn(name, t.columns, 'predicate');
  return folded[0];
}

const compare = (op: Op, d: number) => (op === '=' ? d === 0 : op === '<>' ? d !== 0 : op === '<' ? d < 0 : op === '<=' ? d <= 0 : op === '>' ? d > 0 : d >= 0);

/**
 * A row test for the condition `text` on table `t`: a numeric column compared as numbers, a text
 * column as exact text (= and <> only: the order of texts is the engine's collation). A missing
 * cell meets no condition (SQL's NULL: the row counts 0, as `CASE WHEN … THEN 1 ELSE 0` has it).
 * @example textPredicate("chol > 240", { columns: ['chol'], rows: [['250']] })(['250']) // true
 */
export function textPredicate(text: string, t: TextTable): (row: readonly string[]) => boolean {
  const p = parts(text);
  if (!p) throw oneComparison(text);
  const j = columnOf(t, p.name);
  const column = t.columns[j];
  const { op, literal } = p;
  if (numericColumns(t).includes(column)) {
    const v = literal.text.trim() === '' ? Number.NaN : Number(literal.text);
    if (!Number.isFinite(v)) throw new InputError(`compares the numeric column '${column}' with '${literal.text}', which is not a number`, 'predicate');
    return (r) => !missingNumber(r[j]) && compare(op, cellNumber(r[j]) - v);
  }
  if (!literal.quoted)
    throw new InputError(`compares the text column '${column}' with a number: quote the value (${column} ${op} '${literal.text}')`, 'predicate');
  if (op !== '=' && op !== '<>') throw new InputError(`orders the text column '${column}' (${op}); a text table compares text with = or <> only`, 'predicate');
  const v = literal.text;
  return (r) => !isMissing(r[j]) && (r[j] === v) === (op === '=');
}
