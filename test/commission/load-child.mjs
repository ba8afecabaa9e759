// The loader in a process of its own, so that a load that hangs (a FIFO opened, /dev/zero read) can be seen as a
// hang and ended, instead of blocking the test. Loads the TypeScript source through Vite's module runner (as
// heldout loads commission.ts), then answers one message per package: { dir } → { kind, problems | error }.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runnerImport } from 'vite';

const src = path.resolve(import.meta.dirname, '../../src/commission/index.ts');
const { module } = await runnerImport(pathToFileURL(src).href, { configFile: false, logLevel: 'silent' });
const { loadCommission, CommissionError, formatProblem } = module;

process.on('message', async ({ dir }) => {
  try {
    await loadCommission(dir, { casesRoot: '' });
    process.send({ kind: 'ok' });
  } catch (err) {
    if (err instanceof CommissionError) {
      process.send({ kind: 'problems', problems: err.problems, lines: err.problems.map((p) => formatProblem(p)) });
    } else process.send({ kind: 'raw', error: String(err?.stack ?? err) });
  }
});
process.send({ kind: 'ready' });
