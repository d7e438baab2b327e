import { InputError } from '../errors.js';

// An unquoted name as DuckDB reads it: a letter, `_` or any non-ASCII character first, then digits and `$` too.
const NAME_START = /[A-Za-z_\u0080-\u{10FFFF}]/u;
const NAME_PART = /[A-Za-z0-9_$\u0080-\u{10FFFF}]/u;

/**
 * A secret predicate must be one SQL expression: it is spliced into `WHERE (…)` and
 * `FILTER (WHERE (…))`, so a `;`, a comment or a parenthesis closing past its own level would
 * let it end our statement and start another (`1=1); COPY … TO '/tmp/x'; SELECT (1`).
 * String literals and quoted identifiers are skipped when scanning.
 */
export function checkPredicate(name: string, text: string): void {
  const bad = (why: string) => new InputError(`the predicate of '${name}' ${why}`, 'secret');
  let depth = 0,
    semicolon = false,
    comment = false,
    closesEarly = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') {
      // A prefixed string (E'\'', X'…') reads a backslash as an escape: its end is not the next quote.
      if (c === "'" && i > 0 && NAME_PART.test(text[i - 1])) throw bad(`uses a prefixed string (${text[i - 1]}'…'); write plain '…' strings`);
      const end = text.indexOf(c, i + 1);
      if (end < 0) throw bad(`has an unterminated ${c === "'" ? 'string' : 'quoted name'}`);
      i = end; // a doubled quote ('') simply starts the next literal
    } else if (c === '$') throw bad("uses '$' (dollar quoting or a parameter); write plain '…' strings");
    else if (c === ';') semicolon = true;
    else if ((c === '-' && text[i + 1] === '-') || (c === '/' && text[i + 1] === '*')) comment = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth < 0) closesEarly = true;
  }
  if (semicolon) throw bad("must be one SQL expression (no ';')");
  if (comment) throw bad('must be one SQL expression (no comments)');
  if (closesEarly) throw bad('closes a parenthesis it did not open');
  if (depth !== 0) throw bad('leaves a parenthesis open');
  if (text.trim() === '') throw bad('is empty');
}

/** Names through which a predicate may reach columns it does not name. */
const ROW_READERS = [
  'columns',
  'select',
  'from',
  'table',
  'values',
  'pivot',
  'unpivot',
  'summarize',
  'describe',
  'show',
  'read_csv',
  'read_csv_auto',
  'read_parquet',
  'parquet_scan',
  'read_json',
  'read_json_auto',
  'query',
  'query_table',
];

/**
 * The column names a predicate may read, lower-cased (SQL folds unquoted names; DuckDB matches
 * quoted ones without case too), or `'any'` when it may read columns it does not name
 * (`*`, `COLUMNS(…)`, a position `#3`, the relation's name, a subquery, a quoted path) or where its
 * quotes do not end where they seem to (`$$…$$`, `E'…'`). A string literal counts as a name too
 * (`struct_extract(t, 'fbs')`). A column a secret
 * predicate reads determines the secret, so it is as secret as the secret column.
 * @example predicateColumns("age >= 50 AND \"Sex\" = 'F'") // Set { 'age', 'and', 'sex', 'f' }
 */
export function predicateColumns(text: string): Set<string> | 'any' {
  const names = new Set<string>();
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') {
      // Where a string's or a name's end is not simply the next quote (a prefix E'…', dollar quoting), no column is kept.
      if (c === "'" && i > 0 && NAME_PART.test(text[i - 1])) return 'any';
      // A doubled quote is one quote inside: "fb""s" is the name fb"s.
      let j = i + 1,
        body = '';
      for (; j < text.length; j++) {
        if (text[j] !== c) body += text[j];
        else if (text[j + 1] === c) body += text[j++];
        else break;
      }
      // A quoted name with a path in it ("/data/x.csv") names a file: a table of its own.
      if (c === '"' && /[/\\.]/.test(body)) return 'any';
      names.add(body.toLowerCase());
      i = j;
    } else if (c === '#' || c === '*' || c === '$') return 'any';
    else if (NAME_START.test(c)) {
      let j = i;
      while (j < text.length && NAME_PART.test(text[j])) j++;
      names.add(text.slice(i, j).toLowerCase());
      i = j - 1;
    }
  }
  // COLUMNS('regex') reaches columns by a pattern; the relation's own name reads the row as a struct
  // (`read_csv['f' || 'bs']`); a subquery can read the file again.
  if (ROW_READERS.some((n) => names.has(n))) return 'any';
  return names;
}
