import { jsonText } from './format.js';
import type { Command } from 'commander';
import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { InputError } from '../errors.js';
import { progressBar } from './progress.js';
import { settingOption } from './flags.js';

interface ReproduceCliOptions {
  out: string;
  quick?: boolean;
  figure?: string[];
  dataDir?: string;
  json?: boolean;
  markov?: boolean;
}

async function runReproduce(o: ReproduceCliOptions): Promise<void> {
  const figures = o.figure
    ?.flatMap((f) => f.split(','))
    .map((f) => {
      const n = /^\s*\d+\s*$/.test(f) ? Number(f) : NaN;
      if (![1, 2, 3, 4].includes(n)) throw new InputError(`unknown figure '${f}' (1, 2, 3 or 4)`, '--figure');
      return n;
    });
  if (o.dataDir && !existsSync(o.dataDir)) throw new InputError(`folder '${o.dataDir}' does not exist`, '--data-dir');
  // The output folder is created only when its parent exists (no surprise trees; Node's recursive
  // mkdir can also spin forever under /proc), and must be writable: checked before any work.
  const out = resolve(o.out);
  if (existsSync(out)) {
    if (!statSync(out).isDirectory()) throw new InputError(`'${o.out}' exists and is not a folder`, '--out');
  } else if (!existsSync(dirname(out)) || !statSync(dirname(out)).isDirectory()) {
    throw new InputError(`folder '${dirname(o.out)}' does not exist`, '--out');
  }
  try {
    if (!existsSync(out)) mkdirSync(out);
    accessSync(out, constants.W_OK);
  } catch (e) {
    throw new InputError(`cannot write to '${o.out}' (${(e as NodeJS.ErrnoException).code ?? 'error'})`, '--out');
  }
  const bar = await progressBar('reproduce', !o.json);
  if (o.markov) {
    if (figures || o.dataDir) throw new InputError('takes the Markov experiment alone (no --figure or --data-dir)', '--markov');
    const { reproduceMarkov } = await import('../reproduce/markov.js');
    const r = await reproduceMarkov({ out: o.out, quick: o.quick, onProgress: (done, total, label) => bar.update(done, total, label) });
    bar.stop();
    if (o.json) process.stdout.write(`${jsonText({ out: o.out, files: r.files })}\n`);
    else process.stdout.write(`wrote ${r.files.length} files to ${o.out}; see ${join(o.out, 'REPORT-markov.md')}\n`);
    return;
  }
  const { reproduce } = await import('../reproduce/reproduce.js');
  const r = await reproduce({
    out: o.out,
    quick: o.quick,
    figures,
    dataDir: o.dataDir,
    onProgress: (done, total, label) => bar.update(done, total, label),
  });
  bar.stop();
  if (o.json) process.stdout.write(jsonText({ out: o.out, source: r.source, files: r.files }) + '\n');
  else process.stdout.write(`wrote ${r.files.length} files to ${o.out} (data: ${r.source}); see ${join(o.out, 'REPORT.md')}\n`);
}

/** Registers `reproduce`. */
export function reproduceCommand(program: Command): void {
  program
    .command('reproduce')
    .description("Regenerate the paper's Figures 1–3 and Figure 4 (every method) as CSV, SVG, PNG and REPORT.md.")
    .addOption(settingOption('out', 'output folder', { arg: '<dir>' }).default('reproduction'))
    .addOption(settingOption('quick'))
    .addOption(settingOption('figure'))
    .addOption(settingOption('markov'))
    .addOption(settingOption('dataDir', 'UCI files as shipped (adult/adult.data, heart-disease/…, student/…); default: embedded counts'))
    .addOption(settingOption('json', 'print the list of files as JSON (no progress bar)'))
    .action((o: ReproduceCliOptions) => runReproduce(o));
}
