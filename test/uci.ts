import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The shared UCI copies (`../shared/datasets/uci` beside the project), or PUFFERFISH_UCI_DIR. */
export const UCI_DIR = process.env.PUFFERFISH_UCI_DIR ?? resolve(dirname(fileURLToPath(import.meta.url)), '../../shared/datasets/uci');
export const HAVE_UCI = existsSync(join(UCI_DIR, 'SHA256SUMS'));

/** Throws unless `file` (relative to UCI_DIR) matches its line in SHA256SUMS. */
export function verifyUci(file: string): void {
  const sums = readFileSync(join(UCI_DIR, 'SHA256SUMS'), 'utf8');
  const line = sums.split('\n').find((l) => l.trim().endsWith(`./${file}`));
  if (!line) throw new Error(`${file} is not listed in SHA256SUMS`);
  const got = createHash('sha256').update(readFileSync(join(UCI_DIR, file))).digest('hex');
  if (got !== line.split(/\s+/)[0]) throw new Error(`${file}: SHA-256 mismatch`);
}
