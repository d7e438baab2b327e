import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, openSync, readSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { InputError } from '../errors.js';

/** The same file on disk (after links), or the same path when it does not exist yet. */
function samePath(a: string, b: string): boolean {
  const real = (p: string) => (existsSync(p) ? realpathSync(p) : resolve(p));
  try {
    return real(a) === real(b);
  } catch {
    return resolve(a) === resolve(b);
  }
}

/**
 * Checks an output path before any work: its folder exists, it is absent or a regular file (the
 * rename would replace a FIFO or a device node with a file), and it is none of the inputs
 * (writing over `--data` or `--spec` would lose the input) nor another output of the same run.
 */
export function checkOutput(out: string, flag: string, inputs: { path: string; flag: string }[], outputs: { path?: string; flag: string }[] = []): void {
  const dir = dirname(resolve(out));
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new InputError(`folder '${dirname(out)}' does not exist`, flag);
  if (existsSync(out)) {
    const st = statSync(out);
    if (st.isDirectory()) throw new InputError(`'${out}' is a folder; name a file`, flag);
    if (!st.isFile()) throw new InputError(`'${out}' is not a regular file (a FIFO, socket or device); name a file`, flag);
  }
  refuseOverwrite(out, flag, inputs, outputs);
  refuseDatabase(out, flag);
}

/**
 * Refuses to write over a DuckDB database file, whatever its name: a ledger is one, and writing a
 * table or a spec over it would lose the record of every release it accounts (the budget spent).
 * DuckDB's files carry "DUCK" at byte 8.
 */
function refuseDatabase(out: string, flag: string): void {
  if (!existsSync(out) || !statSync(out).isFile()) return;
  const head = Buffer.alloc(12);
  const fd = openSync(out, 'r');
  try {
    readSync(fd, head, 0, 12, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1', 8, 12) === 'DUCK')
    throw new InputError(`'${out}' is a DuckDB database (a ledger is one); refusing to write over it: name another file`, flag);
}

/**
 * Refuses an output that is one of the run's inputs (a table, a spec, a ledger: writing over it
 * would lose it) or another of its outputs. PostgreSQL locations are never files.
 * @example refuseOverwrite('out.csv', '--out', [{ path: 'in.csv', flag: '--data' }]) // undefined: two files
 */
export function refuseOverwrite(out: string, flag: string, inputs: { path: string; flag: string }[], outputs: { path?: string; flag: string }[] = []): void {
  for (const i of inputs)
    if (!/^postgres(ql)?:\/\//i.test(i.path) && samePath(out, i.path))
      throw new InputError(`'${out}' is the input of ${i.flag}; refusing to write over it`, flag);
  for (const o of outputs)
    if (o.path !== undefined && samePath(out, o.path)) throw new InputError(`'${out}' is also the output of ${o.flag}; name two files`, flag);
}

/** Why a write failed, as the user's problem when it is (permissions, a full disk, a missing folder). */
function writeProblem(e: unknown): string | null {
  const code = (e as NodeJS.ErrnoException).code;
  if (code && ['EACCES', 'EPERM', 'EROFS', 'ENOENT', 'ENOSPC', 'EDQUOT', 'EFBIG', 'EIO', 'ENOTDIR', 'ENAMETOOLONG'].includes(code)) return code;
  // DuckDB's COPY reports the operating system's error in its message.
  const m = /(No space left on device|Disk quota exceeded|File too large|Permission denied|Read-only file system)/i.exec(String((e as Error)?.message));
  return m ? m[1] : null;
}

/** A unique temporary name beside `out` (same folder, so the final rename is atomic). */
function temporaryBeside(out: string): string {
  return join(dirname(resolve(out)), `.${basename(out)}.${process.pid}.${randomUUID()}.tmp`);
}

/**
 * Writes through a unique temporary file in the target's folder and renames it into place:
 * a reader sees the old file or the whole new one, never a torn one, and no other file is touched.
 * `write` receives the temporary path.
 */
export async function writeAtomically(out: string, flag: string, write: (tmp: string) => Promise<void> | void): Promise<void> {
  // Checked again at the write itself: not every caller checks its output before its work.
  refuseDatabase(out, flag);
  const tmp = temporaryBeside(out);
  try {
    await write(tmp);
    renameSync(tmp, out);
  } catch (e) {
    rmSync(tmp, { force: true });
    if (e instanceof InputError) throw e;
    const why = writeProblem(e);
    if (why) throw new InputError(`cannot write '${out}' (${why}); nothing was written`, flag);
    throw e;
  }
}

/** `writeAtomically` for text (or bytes). */
export function writeTextAtomically(out: string, flag: string, text: string | Uint8Array): Promise<void> {
  return writeAtomically(out, flag, (tmp) => writeFileSync(tmp, text));
}
