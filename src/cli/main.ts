#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { commandExit, EXIT } from './exitCode.js';
import { InputError } from '../errors.js';
import { FIELD_FLAGS } from './flags.js';
import { accountCommand } from './accountCommand.js';
import { auditCommand } from './auditCommand.js';
import { calibrateCommand } from './calibrateCommand.js';
import { datasetsCommand } from './datasetsCommand.js';
import { releaseCommand } from './releaseCommand.js';
import { reproduceCommand } from './reproduceCommand.js';
import { serveCommand } from './serve.js';

export function buildProgram(): Command {
  const program = new Command('pufferfish')
    .description(
      'Rényi Pufferfish privacy for correlated data: calibrate Laplace, Gaussian and exponential-mechanism noise\n' +
        'by the α-Wasserstein mechanisms of Ding, Yang, Zhang (arXiv 2605.05723) and their W∞ baselines.',
    )
    .version('0.1.0');
  calibrateCommand(program);
  auditCommand(program);
  accountCommand(program);
  releaseCommand(program);
  reproduceCommand(program);
  datasetsCommand(program);
  serveCommand(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  program.exitOverride();
  const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
  for (const c of all(program)) c.exitOverride();
  program.configureOutput({ writeErr: (s) => process.stderr.write(s) });
  try {
    await program.parseAsync(argv);
    return commandExit();
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help' ? EXIT.ok : EXIT.badInput;
    }
    if (e instanceof InputError) {
      const named = e.path && FIELD_FLAGS[e.path] ? new InputError(e.reason, FIELD_FLAGS[e.path]) : e;
      process.stderr.write(`error: ${escapeControls(named.message)}\n`);
      return EXIT.badInput;
    }
    const err = e as Error;
    process.stderr.write(`error: ${err.name === 'NumericalError' ? 'numerical failure' : 'internal error'}: ${escapeControls(err.message)}\n`);
    if (process.env.PUFFERFISH_DEBUG) process.stderr.write(`${err.stack}\n`);
    return err.name === 'NumericalError' ? EXIT.numerical : EXIT.internal;
  }
}

/**
 * Control characters from names and data (an ANSI escape in a secret value, a carriage return in
 * a column name) are shown as `\xNN`, never sent raw to the terminal; newlines and tabs pass.
 * JSON output already escapes them. (The progress bar writes its own codes to stderr directly.)
 */
const escapeControls = (s: string) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
const rawWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) =>
  (rawWrite as (c: string | Uint8Array, ...r: unknown[]) => boolean)(
    typeof chunk === 'string' ? escapeControls(chunk) : chunk,
    ...rest,
  )) as typeof process.stdout.write;

// A closed pipe (`pufferfish … | head`) is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});
process.exitCode = await main(process.argv);
