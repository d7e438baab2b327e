import { InputError } from '../errors.js';

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
      const end = text.indexOf(c, i + 1);
      if (end < 0) throw bad(`has an unterminated ${c === "'" ? 'string' : 'quoted name'}`);
      i = end; // a doubled quote ('') simply starts the next literal
    } else if (c === ';') semicolon = true;
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
