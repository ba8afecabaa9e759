import path from 'node:path';
import { caseRef, fixtures, makeCommission, outputDir } from './helpers.js';

/** An editing commission on fixtures/grading/starter: new feature `mul` (hidden test), regression suite test.sh. */
export const editingCommission = () =>
  makeCommission(
    {
      family: 'editing',
      editing: {
        allowedPaths: ['lib.js', 'src/**'],
        forbiddenPaths: ['test.sh'],
        regression: { command: 'cd {tree} && sh test.sh', timeoutSeconds: 30 },
      },
    },
    {
      dimensions: [
        {
          id: 'feature',
          title: 'New feature',
          max: 100,
          items: [
            {
              check: 'command',
              run: `cd {tree} && node -e "process.exit(require('./lib.js').mul(3, 4) === 12 ? 0 : 1)"`,
              title: 'hidden test: mul',
              points: 100,
            },
          ],
        },
      ],
    },
    { starterDir: path.join(fixtures, 'starter') },
  );

export const editingCase = (patch: string) => ({
  commission: editingCommission(),
  caseRef: caseRef(null, 'Add mul(a, b) to lib.js.'),
  trial: 1,
  execution: null,
  outputDir: outputDir({}),
  patch: path.join(fixtures, patch),
  judge: null,
  cacheDir: null,
});
