import { type ParseArgsConfig, parseArgs } from 'node:util';
import { closest } from '../util/index.js';

/** Thrown for bad usage or invalid input: the CLI prints the message and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The `node:util` parseArgs option table a command declares (see `declareOptions`). */
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

/** Types a command's module default export; the registry (registry.ts) finds it by its `name`. */
export function defineCommand(c: Command): Command {
  return c;
}

/** Parses a command's arguments strictly (plus `--help`); an unknown or malformed option is a UsageError. */
export function parseCommandArgs(command: Command, argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    const e = err as Error & { code?: string };
    const help = `heldout ${command.name} --help lists the options`;
    const unknown = /^Unknown option '([^']+)'/.exec(e.message)?.[1];
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown) {
      const names = Object.keys(command.options).map((n) => `--${n}`);
      const hint = closest(unknown, names);
      throw new UsageError(
        `${command.name}: unknown option ${unknown}${hint ? ` (did you mean ${hint}?)` : ''}; ${help}`,
      );
    }
    const missing = /^Option '(--?[^ ']+)[^']*' argument missing/.exec(e.message)?.[1];
    if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && missing)
      throw new UsageError(`${command.name}: ${missing} needs a value; ${help}`);
    throw new UsageError(`${command.name}: ${e.message.split('\n')[0]}; ${help}`);
  }
}
