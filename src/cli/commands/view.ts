import { existsSync, statSync } from 'node:fs';
import { LOOPBACK_HOSTS, startViewServer } from '../../report/index.js';
import { defineCommand, UsageError } from '../command.js';
import { declareOptions, optionalInteger, stringOption } from '../options.js';

export default defineCommand({
  name: 'view',
  summary: 'serve past runs on loopback: the run list with gates and figures, each report, two runs side by side',
  help: `Usage: heldout view [reports/] [--port n] [--host 127.0.0.1|::1|localhost]

Starts a local web server (loopback only) over a directory of runs: every directory in it (itself and two levels
down) that holds a summary.json. / lists the runs, newest first, with their gate verdicts, coverage and held-out
figures; /run/<name>/ is that run's report (rendered from its summary.json, so summary@1 runs get today's page);
/compare?a=<name>&b=<name> puts two runs side by side with the case-by-case comparison (pick the same run twice
and name two of its deliveries to compare them). Each run's static index.html keeps working without it.
Stop with Ctrl-C.

Options:
  --port <n>     port to listen on (default 4848; 0 picks a free one)
  --host <addr>  loopback address to bind (default 127.0.0.1); any other address is refused

Exit: 0 after Ctrl-C, 2 usage error (a missing directory, a non-loopback host, a port in use).`,
  options: declareOptions({ string: ['port', 'host'] }),
  async run({ values, positionals }) {
    if (positionals.length > 1) throw new UsageError('view: name at most one directory of runs');
    const root = positionals[0] ?? 'reports';
    if (!existsSync(root) || !statSync(root).isDirectory()) throw new UsageError(`view: ${root} is not a directory`);
    const host = stringOption(values, 'host') ?? '127.0.0.1';
    if (!(LOOPBACK_HOSTS as readonly string[]).includes(host)) {
      throw new UsageError(`--host: heldout view listens on loopback only (${LOOPBACK_HOSTS.join(', ')}), not ${host}`);
    }
    const port = optionalInteger(values, 'port', 0) ?? 4848;
    if (port > 65535) throw new UsageError(`--port: expected a port number up to 65535, got ${port}`);
    let server: Awaited<ReturnType<typeof startViewServer>>;
    try {
      server = await startViewServer({ root, host, port });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE') throw new UsageError(`--port: ${port} is in use (--port 0 picks a free one)`);
      throw err;
    }
    console.log(`heldout view: ${server.url} (runs under ${root}; Ctrl-C stops)`);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await server.close();
    return 0;
  },
});
