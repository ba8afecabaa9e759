// Test helper of test/hardening/fault-suite.test.ts: runs one commission against many deliveries in one heldout
// run through the library API (the CLI takes one delivery), as `npx vitest` with the plugin would.
//   node run-faults.mjs '<json: { commission, deliveries: { label: dir }, sandbox, out, concurrency }>'
const { runHeldout, QuietReporter } = await import(new URL('../../dist/vitest/index.js', import.meta.url).href);
const o = JSON.parse(process.argv[2]);
const result = await runHeldout(
  {
    commissions: [o.commission],
    delivery: o.deliveries,
    sandbox: o.sandbox,
    out: o.out,
    concurrency: o.concurrency,
    freeze: false,
    judgeCache: false,
  },
  { reporters: [new QuietReporter()] },
);
console.log(`fault suite: ${result.summary ? 'summary written' : 'no summary'}, ${result.failedTests} tests failed`);
