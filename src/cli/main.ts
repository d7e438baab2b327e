#!/usr/bin/env node
// The `pufferfish` binary: the command line (run.ts) with this process's output wiring.
import { showNames } from './format.js';
import { escapeControls, main } from './run.js';

const rawWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) =>
  (rawWrite as (c: string | Uint8Array, ...r: unknown[]) => boolean)(
    typeof chunk === 'string' ? escapeControls(showNames(chunk)) : chunk,
    ...rest,
  )) as typeof process.stdout.write;

// A library's runtime warning (pg's notice about SSL modes runs to eight lines) is one line on stderr.
process.removeAllListeners('warning');
process.on('warning', (w) => process.stderr.write(`warning: ${escapeControls(w.message.split('\n')[0])}\n`));

// A closed pipe (`pufferfish … | head`) is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});
process.exitCode = await main(process.argv);
