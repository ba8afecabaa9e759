#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { closest } from '../util/index.js';
import { type Command, parseCommandArgs } from './command.js';
import { describeError } from './errors.js';
import { commandNames, commands, loadCommand } from './registry.js';

const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

function mainHelp(list: Command[]): string {
  const width = Math.max(...list.map((c) => c.name.length));
  return `heldout ${version}: acceptance-test AI agents on cases they have never seen

Usage: heldout <command> [options]   (heldout <command> --help for details)

Commands:
${list.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Exit codes: 0 success, 1 a gate or property failed, 2 usage error or invalid input.\n--debug (with any command) shows the stack of an error.`;
}

// `--debug` anywhere shows the stack of an error; everything else prints one line.
const argvAll = process.argv.slice(2);
const debug = argvAll.includes('--debug');
let commandName: string | null = null;

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    console.log(mainHelp(await commands()));
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] === '--version' || argv[0] === '-v') {
    console.log(version);
    return 0;
  }
  const two = `${argv[0]} ${argv[1] ?? ''}`;
  const command = (await loadCommand(two)) ?? (await loadCommand(argv[0]));
  if (!command) {
    const group = commandNames.filter((n) => n.startsWith(`${argv[0]} `));
    if (group.length > 0) {
      console.error(`heldout ${argv[0]}: name one of: ${group.map((n) => n.split(' ')[1]).join(', ')}`);
    } else {
      // `gen-property` or `taste_sample` is a two-word command written as one: name it with its space.
      const joined = argv[0].replace(/[-_]/g, ' ');
      const hint =
        commandNames.find((n) => n === joined) ??
        closest(
          argv[0],
          commandNames.map((n) => n.split(' ')[0]!),
        ) ??
        closest(
          joined,
          commandNames.filter((n) => n.includes(' ')),
        );
      console.error(
        `heldout: unknown command '${argv[0]}'${hint ? ` (did you mean ${hint}?)` : ''}; heldout --help lists the commands`,
      );
    }
    return 2;
  }
  commandName = command.name;
  const rest = argv.slice(command.name.split(' ').length);
  const args = parseCommandArgs(command, rest);
  if (args.values.help) {
    console.log(command.help);
    return 0;
  }
  return command.run(args as { values: Record<string, unknown>; positionals: string[] });
}

main(argvAll.filter((a) => a !== '--debug')).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(describeError(err, commandName));
    if (debug) console.error((err as Error)?.stack ?? String(err));
    process.exitCode = 2;
  },
);
