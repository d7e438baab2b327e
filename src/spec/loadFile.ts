import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { InputError } from '../errors.js';
import { parseAnySpecText, parseSpecText, type AnySpec, type SpecDefaults } from './load.js';
import type { Scenario } from '../distribution/scenario.js';

/** Specs larger than this are refused (a spec is a summary; `--spec /dev/zero` must not eat memory). */
const MAX_SPEC_BYTES = 256 * 1024 * 1024;

/** Reads at most `cap` bytes (devices and pipes report no size, so the cap is enforced by reading). */
function readCapped(file: string, cap: number): string {
  // Opening a FIFO waits for a writer, possibly forever: refused, as for --data.
  const st = statSync(file);
  if (st.isFIFO() || st.isSocket()) throw new InputError(`'${file}' is a FIFO or socket; give a regular file (opening it would wait for a writer)`, 'spec');
  if (st.isDirectory()) throw new InputError(`'${file}' is a folder; give a spec file`, 'spec');
  const fd = openSync(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    const buf = Buffer.alloc(1 << 20);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      total += n;
      if (total > cap) throw new InputError(`is larger than ${cap / 1024 / 1024} MiB; a spec holds histograms, not rows (use --data for tables)`, 'spec');
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads and validates a JSON spec file with finite conditionals (text from `parseSpecText`).
 * @example loadSpecFile('examples/spec.json').defaults.method // 'theorem'
 */
export function loadSpecFile(file: string): { scenario: Scenario; defaults: SpecDefaults } {
  return parseSpecText(readSpec(file), file);
}

/** Reads and validates a JSON spec file, finite or Gaussian conditionals (docs/math.md §11). */
export function loadAnySpecFile(file: string): AnySpec {
  return parseAnySpecText(readSpec(file), file);
}

/**
 * Whether a spec file's text names one of `keys` (`"windows"`, `"statistic"`): a cheap test on its
 * text, so that only such a spec is validated twice (as a series' windows, docs/math.md §19, or a
 * statistic's laws, §18); false for a file that cannot be read (its own path reports it).
 * @example specNames('examples/spec.json', ['windows', 'windowLength']) // false
 */
export function specNames(file: string, keys: readonly string[]): boolean {
  try {
    return new RegExp(`"(${keys.join('|')})"\\s*:`).test(readSpec(file));
  } catch {
    return false;
  }
}

function readSpec(file: string): string {
  let text: string;
  try {
    text = readCapped(file, MAX_SPEC_BYTES);
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`cannot read spec file '${file}' (${(e as NodeJS.ErrnoException).code ?? 'error'})`, 'spec');
  }
  return text;
}
