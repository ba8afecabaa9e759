import path from 'node:path';
import { propertyTests } from '../../src/propgen/index.js';

// The same properties under `npx vitest`: one @fast-check/vitest `test.prop` over generated log-triage cases.
const repo = path.resolve(import.meta.dirname, '../..');
await propertyTests(path.join(repo, 'tasks/log-triage'), path.join(repo, 'fixtures/deliveries/log-triage-reference'), {
  numRuns: 15,
  seed: 11,
  sandbox: 'process',
});
