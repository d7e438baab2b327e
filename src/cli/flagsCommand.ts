import type { Command } from 'commander';
import { MODES, SETTINGS, type Guarantee, type SettingDecl, type SettingName } from '../settings.js';

/** The guarantees, as `--guarantee` declares them. */
const GUARANTEES = SETTINGS.guarantee.choices as readonly Guarantee[];

/**
 * Where each flag is not taken, read off the settings' declarations (the refusals' own source):
 * the guarantees that do not take it, a table's settings beside a spec or a built-in scenario, and
 * each mode of its `notIn` with that mode's reason. Flags taken everywhere they are offered are left out.
 * @example whereNotTaken().find((r) => r.flag === '--alpha')?.where[0] // 'with --guarantee mi'
 */
export function whereNotTaken(): { flag: string; where: string[] }[] {
  return (Object.keys(SETTINGS) as SettingName[]).flatMap((k) => {
    const d: SettingDecl = SETTINGS[k];
    const where = [
      ...GUARANTEES.filter((g) => d.guarantees && !d.guarantees.includes(g)).map((g) => `with --guarantee ${g}`),
      ...(d.table ? [MODES.spec, MODES.scenario] : []),
      ...(d.notIn ?? []).map((m) => MODES[m]),
    ];
    return where.length ? [{ flag: d.flag, where: [...new Set(where)] }] : [];
  });
}

/** Registers `flags`: every flag a situation does not read, and why (a command refuses it there by name, exit 2). */
export function flagsCommand(program: Command): void {
  program
    .command('flags')
    .description('List where each flag is not taken, and why (given there, it is refused by name with exit 2).')
    .action(() => {
      for (const { flag, where } of whereNotTaken()) process.stdout.write(`${flag}\n${where.map((w) => `  not taken ${w}\n`).join('')}`);
    });
}
