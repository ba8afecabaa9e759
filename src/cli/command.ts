import { type ParseArgsConfig, parseArgs } from 'node:util';

/** Thrown for bad usage or invalid input: the CLI prints the message and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type Options = NonNullable<ParseArgsConfig['options']>;

/** One `heldout <name>` command. `run` resolves to the process exit code. */
export interface Command {
  /** One or two words, e.g. `validate` or `taste coverage`. */
  name: string;
  summary: string;
  /** Usage lines and option descriptions, printed by `heldout <name> --help`. */
  help: string;
  options: Options;
  run(args: { values: Record<string, unknown>; positionals: string[] }): Promise<number>;
}

export function defineCommand(c: Command): Command {
  return c;
}

export function parseCommandArgs(command: Command, argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nSee: heldout ${command.name} --help`);
  }
}

/** Reads a numeric option, refusing anything that is not a number in range. */
export function numberOption(values: Record<string, unknown>, name: string, fallback: number, min = 0): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new UsageError(`--${name}: expected a number ≥ ${min}, got ${String(raw)}`);
  return n;
}

/** A whole-number option (counts, sizes): `2.5` is refused, not silently rounded. */
export function integerOption(values: Record<string, unknown>, name: string, fallback: number, min = 0): number {
  const n = numberOption(values, name, fallback, min);
  if (!Number.isInteger(n))
    throw new UsageError(`--${name}: expected a whole number ≥ ${min}, got ${String(values[name])}`);
  return n;
}
