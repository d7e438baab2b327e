import { Command, CommanderError } from 'commander';
import { commandExit, EXIT, setCommandExit } from './exitCode.js';
import { whereNotTaken } from './flagsCommand.js';
import { InputError } from '../errors.js';
import { FIELD_FLAGS, refuseRepeats } from './flags.js';
import { refuseOverwrite } from '../io/atomicWrite.js';
import { SETTINGS, type SettingDecl } from '../settings.js';
type Register = (program: Command) => void;

/** Each command's module, loaded only when that command runs (help and unknown commands load all). */
const COMMANDS: Record<string, () => Promise<Register>> = {
  calibrate: async () => (await import('./calibrateCommand.js')).calibrateCommand,
  audit: async () => (await import('./auditCommand.js')).auditCommand,
  account: async () => (await import('./accountCommand.js')).accountCommand,
  release: async () => (await import('./releaseCommand.js')).releaseCommand,
  reproduce: async () => (await import('./reproduceCommand.js')).reproduceCommand,
  datasets: async () => (await import('./datasetsCommand.js')).datasetsCommand,
  serve: async () => (await import('./serve.js')).serveCommand,
  ledger: async () => (await import('./ledgerCommand.js')).ledgerCommand,
  flags: async () => (await import('./flagsCommand.js')).flagsCommand,
};
/** Commands registered by another command's module. */
const HOME: Record<string, string> = { scenarios: 'datasets' };

/** The `pufferfish` program with every command (or only `command`'s module when one is named). */
export async function buildProgram(command?: string): Promise<Command> {
  const program = new Command('pufferfish')
    .description(
      'Rényi Pufferfish privacy for correlated data: calibrate Laplace, Gaussian and exponential-mechanism noise\n' +
        'by the α-Wasserstein mechanisms of Ding, Yang, Zhang (arXiv 2605.05723) and their W∞ baselines.',
    )
    .version('0.1.0');
  const name = command && (HOME[command] ?? command);
  const wanted = name && Object.hasOwn(COMMANDS, name) ? [name] : Object.keys(COMMANDS);
  for (const register of await Promise.all(wanted.map((k) => COMMANDS[k]()))) register(program);
  return program;
}

/**
 * Runs one `pufferfish` command line (argv as process.argv: node, script, command, …) and returns
 * its exit code; output goes to process.stdout and process.stderr. The `pufferfish` binary
 * (main.ts) is this and the process's own wiring; tests call it in-process where the command's
 * work, not the process boundary, is what they test.
 */
export async function main(argv: string[]): Promise<number> {
  setCommandExit(EXIT.ok);
  const program = await buildProgram(argv[2]);
  program.exitOverride();
  const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
  const refusable = new Set(whereNotTaken().map((r) => r.flag));
  for (const c of all(program)) {
    c.exitOverride();
    refuseRepeats(c);
    // The situations are many and span commands: one list, read off the declarations.
    if (c.options.some((o) => o.long && refusable.has(o.long)))
      c.addHelpText(
        'after',
        '\nSome flags are not taken in some situations (given there, each is refused by name, exit 2):\n`pufferfish flags` lists every such flag with where and why.',
      );
  }
  program.hook('preAction', (_root, action) => {
    refuseEmptyValues(action);
    refuseOverwrites(action);
  });
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
      process.stderr.write(`error: ${oneLine(named.message)}\n`);
      return EXIT.badInput;
    }
    const err = e as Error;
    process.stderr.write(`error: ${err.name === 'NumericalError' ? 'numerical failure' : 'internal error'}: ${oneLine(err.message)}\n`);
    if (process.env.PUFFERFISH_DEBUG) process.stderr.write(`${err.stack}\n`);
    return err.name === 'NumericalError' ? EXIT.numerical : EXIT.internal;
  }
}

/**
 * Before any work, no output flag (`--out`, `--spec-out`) names a file the command reads
 * (`--data`, `--spec`, `--ledger`, `--projection`) or another output: the file roles are declared
 * with the settings.
 */
function refuseOverwrites(c: Command): void {
  const given = (role: 'input' | 'output') =>
    c.options.flatMap((opt) => {
      const name = opt.attributeName();
      const d: SettingDecl | undefined = Object.hasOwn(SETTINGS, name) ? SETTINGS[name as keyof typeof SETTINGS] : undefined;
      const v = c.getOptionValue(name);
      return d?.file === role && typeof v === 'string' && !/^random:/i.test(v) ? [{ path: v, flag: d.flag }] : [];
    });
  const [inputs, outputs] = [given('input'), given('output')];
  for (const [k, o] of outputs.entries()) refuseOverwrite(o.path, o.flag, inputs, outputs.slice(k + 1));
}

/**
 * An option given an empty value (`--method ''`) is refused, never read as absent: every command
 * tests `o.method ? …`, so an empty value would silently fall back to the default.
 */
function refuseEmptyValues(c: Command): void {
  for (const opt of c.options) {
    const v = c.getOptionValue(opt.attributeName());
    const values = Array.isArray(v) ? v : [v];
    if (values.some((x) => typeof x === 'string' && x.trim() === ''))
      throw new InputError('is empty; give a value or leave the option out', opt.long ?? opt.flags);
  }
}

/**
 * Control characters from names and data (an ANSI escape in a secret value, a carriage return in
 * a column name) are shown as `\xNN`, never sent raw to the terminal; newlines and tabs pass.
 * JSON output already escapes them. (The progress bar writes its own codes to stderr directly.)
 */
export const escapeControls = (s: string) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);

/** An error message on one line: `escapeControls`, and newlines and tabs (in a secret value, a column name) shown as `\x0a`, `\x09`. */
const oneLine = (s: string) => escapeControls(s).replace(/[\n\t]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
